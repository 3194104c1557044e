import { createHash, randomBytes } from "node:crypto";
import type { ToolSpec } from "../model-client.js";

/*
 * Tool names and call ids as each side accepts them. The Messages API (and so the transcript, a
 * replay, a fork onto Anthropic) takes `^[a-zA-Z0-9_-]{1,64}$`; OpenAI takes the same for function
 * names, and some OpenAI-compatible servers reject call ids over 40 characters. A server's id or
 * name that does not fit is rewritten deterministically (its sanitised head and a hash), so the
 * same input always gives the same output inside a conversation.
 */

const SAFE = /^[a-zA-Z0-9_-]{1,64}$/;

/** Longest call id sent to an OpenAI-format server. */
const MAX_WIRE_ID_CHARS = 40;

/** `value` when it fits `SAFE` and `maxChars`, else its sanitised head and a hash of the whole. */
function fitted(value: string, maxChars: number, fallback: string): string {
  if (SAFE.test(value) && value.length <= maxChars) return value;
  const hash = createHash("sha256").update(value).digest("hex").slice(0, 8);
  const head = value.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, maxChars - hash.length - 1);
  return `${head || fallback}_${hash}`;
}

/** A call id for the transcript (Anthropic's pattern), from the server's id. */
export function toNeutralId(wireId: string): string {
  return fitted(wireId, 64, "call");
}

/** A call id to send to the server, from the transcript's. */
export function toWireId(neutralId: string): string {
  return fitted(neutralId, MAX_WIRE_ID_CHARS, "call");
}

/** An id for a call the server sent without one (vLLM, Ollama). */
export function makeCallId(): string {
  return `call_${randomBytes(12).toString("hex")}`;
}

/** One request's tool names both ways: ours → the wire's, and the wire's back to ours. */
export type ToolNameMap = {
  toWire(name: string): string;
  /** A name the model called; one we did not offer is made safe, and the loop answers it. */
  toNeutral(wireName: string): string;
};

/** The mapping for the tools of one request (names that collide once fitted get a hash each). */
export function createToolNameMap(tools: readonly ToolSpec[]): ToolNameMap {
  const toWire = new Map<string, string>();
  const toNeutral = new Map<string, string>();
  for (const { name } of tools) {
    let wire = fitted(name, 64, "tool");
    if (toNeutral.has(wire)) wire = fitted(`${name}\u0000`, 64, "tool");
    toWire.set(name, wire);
    toNeutral.set(wire, name);
  }
  return {
    toWire: (name) => toWire.get(name) ?? fitted(name, 64, "tool"),
    toNeutral: (wireName) => toNeutral.get(wireName) ?? fitted(wireName, 64, "tool"),
  };
}
