/**
 * Regex source (no anchors) for decimals written `\d+(\.\d+)?` whose value is at most `max`, a
 * positive integer: JSON Schema has no numeric bounds on strings, so a bound on "168h" is spelled
 * as digits. `168` gives `0*(?:(?:\d{1,2}|1[0-5]\d|16[0-7])(?:\.\d+)?|168(?:\.0+)?)`.
 */
export function decimalAtMostPattern(max: number): string {
  if (!Number.isSafeInteger(max) || max < 1) throw new Error(`expected a positive integer: ${max}`);
  const digits = String(max);
  const below = [
    digits.length > 1 ? `\\d{1,${digits.length - 1}}` : undefined,
    ...[...digits].map((digit, index) => {
      // A number as long as `max` that first differs from it here, with a smaller digit.
      const low = index === 0 && digits.length > 1 ? 1 : 0;
      const high = Number(digit) - 1;
      if (high < low) return undefined;
      const rest = digits.length - index - 1;
      const tail = rest === 0 ? "" : rest === 1 ? "\\d" : `\\d{${rest}}`;
      return `${digits.slice(0, index)}[${low}-${high}]${tail}`;
    }),
  ].filter((part) => part !== undefined);
  return `0*(?:(?:${below.join("|")})(?:\\.\\d+)?|${digits}(?:\\.0+)?)`;
}
