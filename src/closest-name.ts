/** Picks the name the user probably meant (`max_step` → `max_steps`, `maxSteps` → `max_steps`), if one is close enough. */
export function closestName(input: string, candidates: readonly string[]): string | undefined {
  const wanted = normalize(input);
  const exact = candidates.find((candidate) => normalize(candidate) === wanted);
  if (exact !== undefined) return exact;
  let best: { name: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const other = normalize(candidate);
    const distance = editDistance(wanted, other);
    const allowed = Math.max(1, Math.floor(Math.min(wanted.length, other.length) / 4));
    if (distance <= allowed && (best === undefined || distance < best.distance)) {
      best = { name: candidate, distance };
    }
  }
  // `timeout_ms` → `timeout`: a known name plus a suffix.
  return best?.name ?? candidates.find((candidate) => isPrefixOf(normalize(candidate), wanted));
}

function isPrefixOf(prefix: string, name: string): boolean {
  return prefix.length >= 5 && name.startsWith(prefix);
}

/** Case, `_`, `-` and spaces don't distinguish field names for suggestions. */
function normalize(name: string): string {
  return name.toLowerCase().replace(/[-_\s]/g, "");
}

/** Levenshtein distance with adjacent transpositions counted as one edit. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        distance = Math.min(distance, at(i - 2, j - 2) + 1);
      }
      const row = rows[i];
      if (row !== undefined) row[j] = distance;
    }
  }
  return at(a.length, b.length);
}
