const MAX_SHOWN_CHARS = 40;

/** Shows a value from a task file the way the user wrote it (`"ten"`, `-1`, `a list`), for "got …" messages. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "an empty value";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "string") {
    const shown = value.length > MAX_SHOWN_CHARS ? `${value.slice(0, MAX_SHOWN_CHARS)}…` : value;
    return JSON.stringify(shown);
  }
  if (typeof value === "object") return "a mapping";
  return String(value);
}
