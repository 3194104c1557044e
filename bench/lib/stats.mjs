// Small statistics and formatting helpers.

export function median(values) {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function sum(values) {
  return values.reduce((total, value) => total + value, 0);
}

/** Least-squares line through (x, y): { slope, intercept, r2 }. */
export function linearFit(xs, ys) {
  const n = xs.length;
  if (n < 2) return { slope: null, intercept: null, r2: null };
  const mx = sum(xs) / n;
  const my = sum(ys) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i += 1) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
    syy += (ys[i] - my) ** 2;
  }
  const slope = sxx === 0 ? 0 : sxy / sxx;
  const r2 = sxx === 0 || syy === 0 ? 1 : (sxy * sxy) / (sxx * syy);
  return { slope, intercept: my - slope * mx, r2 };
}

export function round(value, digits = 2) {
  if (value === null || value === undefined || !Number.isFinite(value)) return null;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** A number with thousands separators and a fixed number of decimals. */
export function fmt(value, digits = 1) {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  return value.toLocaleString("en-US", {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

/** An aligned Markdown table (first column left, the others right-aligned except the last). */
export function markdownTable(header, rows, align) {
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...rows.map((row) => String(row[column]).length)),
  );
  const line = (cells) =>
    `| ${cells
      .map((cell, column) =>
        align[column] === "r"
          ? String(cell).padStart(widths[column])
          : String(cell).padEnd(widths[column]),
      )
      .join(" | ")} |`;
  const rule = `| ${widths
    .map((width, column) =>
      align[column] === "r" ? `${"-".repeat(width - 1)}:` : "-".repeat(width),
    )
    .join(" | ")} |`;
  return [line(header), rule, ...rows.map(line)].join("\n");
}
