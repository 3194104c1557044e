// An API's error body, read bounded: both clients take the server's own words from it.

/** Most bytes of an error body read: enough for any server's message, never a flood. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** The server's own words in an error body, whatever its shape. */
export function errorMessageIn(body: string): string | undefined {
  const json = parseJson(body);
  if (!isRecord(json)) return undefined;
  const inner = isRecord(json.error) ? json.error.message : json.error;
  const words = inner ?? json.message ?? json.detail;
  if (words === undefined || words === null) return undefined;
  return typeof words === "string" ? words : JSON.stringify(words);
}

/** The body's first `maxBytes` as text; the rest is cancelled. */
export async function readTextUpTo(response: Response, maxBytes: number): Promise<string> {
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    while (bytes < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      bytes += value.byteLength;
    }
  } catch {
    // A body cut short still says what it said so far.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, maxBytes));
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
