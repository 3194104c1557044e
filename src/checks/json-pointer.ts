// JSON Pointers (RFC 6901), for checks on a run's structured output: `""` is the whole value,
// `/label` a member, `/items/0` an array's first item; `~1` stands for `/` and `~0` for `~`.

/** RFC 6901's grammar: nothing, or segments each after a `/`, with `~` only as `~0` or `~1`. */
export const JSON_POINTER_PATTERN = "^(?:/(?:[^~/]|~[01])*)*$";

/** The pattern, compiled. */
export const JSON_POINTER = new RegExp(JSON_POINTER_PATTERN, "u");

/** The rule in words, for a task file's author. */
export const JSON_POINTER_RULE =
  'a JSON Pointer (RFC 6901) such as "/label" or "/items/0/name" ("" for the whole output; "~" written as "~0", a "/" inside a name as "~1")';

/** How to fix `text` when it is not a JSON Pointer; undefined when it is one. */
export function jsonPointerHint(text: string): string | undefined {
  if (JSON_POINTER.test(text)) return undefined;
  return text.startsWith("/") ? 'a "~" must be followed by 0 or 1' : 'start it with "/"';
}

/** What a pointer leads to in a value: the value there, or where it leads nowhere. */
export type PointerTarget = { found: true; value: unknown } | { found: false; missing: string };

/**
 * Follows `pointer` (already valid) into `root`, through own members only: `/__proto__` or
 * `/constructor` find a member of that name, never something of Object's prototype. An array
 * index is a whole number without leading zeros, below the length (`-`, past the end, is absent).
 */
export function resolveJsonPointer(root: unknown, pointer: string): PointerTarget {
  if (pointer === "") return { found: true, value: root };
  let current: unknown = root;
  let path = "";
  for (const segment of pointer.slice(1).split("/")) {
    const key = segment.replaceAll("~1", "/").replaceAll("~0", "~");
    path += `/${segment}`;
    const next = childOf(current, key);
    if (!next.found) return { found: false, missing: path };
    current = next.value;
  }
  return { found: true, value: current };
}

function childOf(value: unknown, key: string): { found: true; value: unknown } | { found: false } {
  if (Array.isArray(value)) {
    if (!/^(?:0|[1-9]\d*)$/.test(key) || Number(key) >= value.length) return { found: false };
    return { found: true, value: value[Number(key)] };
  }
  if (!isObject(value) || !Object.hasOwn(value, key)) return { found: false };
  return { found: true, value: value[key] };
}

/**
 * Whether two JSON values are equal: same type, numbers by value, arrays item by item, objects
 * with the same own members in any order.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => jsonEqual(item, b[index]));
  }
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
