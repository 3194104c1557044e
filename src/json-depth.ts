/*
 * How deep a parsed JSON value nests, found without recursion: the model and the API send such
 * values, and one nested thousands deep would overflow the stack of any recursive walker (our own,
 * zod's, JSON.stringify's, structuredClone's).
 */

/** Objects and arrays; what nests. */
function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  return typeof value === "object" && value !== null;
}

/**
 * Whether `value` has containers more than `maxDepth` levels deep: `1` and `"a"` nest 0 levels,
 * `{}` and `[1]` one, `{"a": [2]}` two. Stops at the first container past the bound.
 */
export function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [current, depth] = item;
    if (!isContainer(current)) continue;
    if (depth > maxDepth) return true;
    for (const child of Object.values(current)) {
      if (isContainer(child)) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** What stands in for the containers `cutDeeperThan` removes. */
export const CUT_MARKER = "[nested too deep: cut]";

/**
 * A copy of `value` keeping its first `keepDepth` levels, each container deeper replaced by
 * `CUT_MARKER`; `value` itself when it nests no deeper. The copy still nests `keepDepth` levels.
 */
export function cutDeeperThan(value: unknown, keepDepth: number): unknown {
  if (!isContainer(value) || !nestsDeeperThan(value, keepDepth)) return value;
  const root = emptyLike(value);
  const stack: Array<[Record<string, unknown> | unknown[], Record<string, unknown>, number]> = [
    [value, root, 1],
  ];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [source, target, depth] = item;
    for (const [key, child] of Object.entries(source)) {
      let kept: unknown = child;
      if (isContainer(child)) {
        kept = depth < keepDepth ? emptyLike(child) : CUT_MARKER;
        if (depth < keepDepth) stack.push([child, kept as Record<string, unknown>, depth + 1]);
      }
      // Assigning "__proto__" would set the copy's prototype; defined, it stays a key.
      if (key === "__proto__") {
        Object.defineProperty(target, key, {
          value: kept,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else {
        target[key] = kept;
      }
    }
  }
  return root;
}

function emptyLike(value: object): Record<string, unknown> {
  return (Array.isArray(value) ? [] : {}) as Record<string, unknown>;
}
