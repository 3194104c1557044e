import { formatBytes, oneLine } from "../format.js";
import { nestsDeeperThan } from "../json-depth.js";
import { truncateMiddle } from "./truncate.js";

// An MCP tool result as text for the model. A server's result is hostile input: its text is cut
// like any tool output, and binary content (images, audio, blobs) is never passed on: a short
// placeholder says what it was.

/** A `tools/call` result's content block, as the MCP SDK has validated it. */
export type McpContentBlock =
  | { type: "text"; text: string }
  | { type: "image" | "audio"; data: string; mimeType: string }
  | {
      type: "resource";
      resource: { uri: string; mimeType?: string | undefined; text?: string; blob?: string };
    }
  | { type: "resource_link"; uri: string; name: string; mimeType?: string | undefined };

/** A `tools/call` result. */
export type McpCallResult = {
  content: readonly McpContentBlock[];
  structuredContent: Record<string, unknown> | undefined;
  isError: boolean;
};

/** Deepest `structuredContent` shown as JSON (deeper would overflow `JSON.stringify`'s stack). */
const MAX_STRUCTURED_DEPTH = 64;

/**
 * The result as the model gets it: text blocks joined by newlines, other blocks as placeholders,
 * `structuredContent` as JSON when no block carries text; cut in the middle past `maxChars`.
 */
export function resultText(result: McpCallResult, maxChars: number): string {
  const parts = result.content.map(blockText);
  const hasText = result.content.some(
    (block) =>
      block.type === "text" || (block.type === "resource" && block.resource.text !== undefined),
  );
  if (!hasText && result.structuredContent !== undefined) {
    parts.push(structuredText(result.structuredContent));
  }
  const text = parts.join("\n");
  return truncateMiddle(text === "" ? "(no content)" : text, maxChars);
}

function blockText(block: McpContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return `[${block.type}: ${shown(block.mimeType)}, ${formatBytes(decodedBytes(block.data))}; not shown]`;
    case "resource": {
      const { uri, mimeType, text, blob } = block.resource;
      const what = `resource ${shown(uri)}${mimeType === undefined ? "" : `, ${shown(mimeType)}`}`;
      if (text !== undefined) return `[${what}, ${text.length} characters]\n${text}`;
      return `[${what}, ${formatBytes(decodedBytes(blob ?? ""))}; not shown]`;
    }
    case "resource_link":
      return `[resource link ${shown(block.name)}: ${shown(block.uri)}${block.mimeType === undefined ? "" : `, ${shown(block.mimeType)}`}]`;
    default:
      return unknownBlock(block);
  }
}

/** The SDK validates every block against the known types; a new type would land here. */
function unknownBlock(_block: never): string {
  return "[a content block of an unknown type; not shown]";
}

/** A server's short string (a MIME type, a URI) on one line, cut. */
function shown(text: string): string {
  return oneLine(text, 200);
}

/** The size of base64 data once decoded. */
function decodedBytes(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding);
}

function structuredText(value: Record<string, unknown>): string {
  if (nestsDeeperThan(value, MAX_STRUCTURED_DEPTH)) {
    return `[structured content nested deeper than ${MAX_STRUCTURED_DEPTH} levels; not shown]`;
  }
  return JSON.stringify(value, null, 2);
}
