import { readFile, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { parseTranscript } from "../../src/transcript/reader.js";
import { readSummary, readTranscript } from "../helpers/outputs.js";
import { runCli } from "../helpers/run-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

// Transcripts written by agent-run before version 2 (by its build at the commit before the bump):
// a live run with a retry, a context trim, an unpriced model and the loop guard; and the offline
// example task, whose paths under the project are written `@ROOT@`.

const LIVE = "fixtures/transcripts/v1-live.jsonl";
const OFFLINE = "fixtures/transcripts/v1-offline.jsonl";

async function readV1(file: string) {
  const text = (await readFile(file, "utf8")).replaceAll("@ROOT@", resolve("."));
  return parseTranscript(text, file);
}

describe("version-1 transcripts read as version 2", () => {
  test("each line gets the fields version 2 writes, from what version 1 recorded", async () => {
    const lines = await readV1(LIVE);
    const kind = (name: string) =>
      lines.find(
        (line) => (line.type === "system" ? `system/${line.subtype}` : line.type) === name,
      );

    expect(lines[0]).toMatchObject({
      schema_version: 1,
      claude_code_version: "0.1.0",
      apiKeySource: "ANTHROPIC_API_KEY",
      permissionMode: "dontAsk",
      mcp_servers: [],
    });
    expect(kind("system/api_retry")).toMatchObject({
      error: "server_error",
      error_message: "Service Unavailable",
      error_status: 503,
      // Recorded as null (the SDK's own backoff): the backoff of a first retry.
      retry_delay_ms: 500,
    });
    expect(kind("system/compact_boundary")).toMatchObject({
      compact_metadata: { trigger: "auto", pre_tokens: 4000 },
    });
    expect(kind("assistant")).toMatchObject({
      message: { container: null, stop_sequence: null, usage: { service_tier: null } },
    });
    const result = kind("result");
    expect(result).toMatchObject({
      status: "loop",
      total_cost_usd: 0,
      unpriced_models: ["mystery-model-1"],
      modelUsage: { "mystery-model-1": { costUSD: 0, contextWindow: 4000, webSearchRequests: 0 } },
      usage: { service_tier: "standard", cache_creation: { ephemeral_1h_input_tokens: 0 } },
      errors: [expect.stringMatching(/loop/)],
    });
    expect(Object.keys(result ?? {})).not.toContain("terminal_reason");
  });

  test("a malformed version-1 line is refused with the file and line, not migrated into a crash", async () => {
    const rows = (await readFile(LIVE, "utf8")).trimEnd().split("\n");
    const assistant = JSON.parse(rows[2] ?? "{}") as { message: Record<string, unknown> };
    const broken = [
      { ...assistant, message: { ...assistant.message, content: [null] } },
      { ...assistant, message: { ...assistant.message, content: "text" } },
    ];
    for (const line of broken) {
      const text = [rows[0], JSON.stringify(line), ...rows.slice(3)].join("\n");

      expect(() => parseTranscript(`${text}\n`, "v1.jsonl")).toThrow(
        expect.objectContaining({
          name: "TranscriptError",
          message: expect.stringMatching(/^v1\.jsonl:2: assistant line: message\./),
        }),
      );
    }
  });

  test("a version-1 status's own terminal_reason becomes the SDK's", async () => {
    const lines = await readV1(OFFLINE);
    const text = (await readFile(OFFLINE, "utf8")).trimEnd().split("\n");
    const recorded = JSON.parse(text.at(-1) ?? "{}") as { terminal_reason: string };

    expect(recorded.terminal_reason).toBe("completed");
    expect(lines.at(-1)).toMatchObject({ status: "completed", terminal_reason: "completed" });
  });

  test("a version-1 recording still replays, into a current (version-3) transcript", async () => {
    await using dir = await tmpWorkspace({});
    const text = (await readFile(OFFLINE, "utf8")).replaceAll("@ROOT@", resolve("."));
    await writeFile(dir.path("transcript.jsonl"), text);

    const run = await runCli([
      "replay",
      "--strict",
      dir.path("transcript.jsonl"),
      "--out",
      dir.path("replays"),
    ]);

    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/replay: no divergence/);
    expect(await readSummary(dir.path("replays/fix-failing-test"))).toMatchObject({
      status: "completed",
      passed: true,
    });
    const replayed = await readTranscript(dir.path("replays/fix-failing-test"));
    expect(replayed[0]).toMatchObject({ schema_version: 3, origin: { kind: "replay" } });
  });
});
