import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { nestsDeeperThan } from "../../src/json-depth.js";
import { MAX_TOOL_INPUT_DEPTH } from "../../src/model/reply-limits.js";
import {
  blockAtIndex,
  deepToolInput,
  deltaForMissingBlock,
  garbageLines,
  giantText,
  manyBlocks,
} from "../helpers/hostile-replies.js";
import { startMockHttpServer } from "../helpers/mock-http-server.js";
import { readSummary, readTranscript } from "../helpers/outputs.js";
import { type RawStream, reply } from "../helpers/replies.js";
import { spawnCli } from "../helpers/spawn-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

// A hostile or broken Messages API on 127.0.0.1, against the real built binary: whatever it sends,
// the process ends with a documented exit code (not a signal), says what went wrong, and leaves a
// transcript that parses and ends with its result line.

/** A task file and its workspace; runs the binary on it against `url`, with one retry. */
async function runAgainst(url: string) {
  const dir = await tmpWorkspace({ files: { "ws/a.txt": "a\n" } });
  await writeFile(dir.path("t.yaml"), "prompt: Go.\nworkspace: ws\n");
  const run = await spawnCli([dir.path("t.yaml"), "--out", dir.path("out")], {
    ANTHROPIC_API_KEY: "sk-test",
    ANTHROPIC_BASE_URL: url,
    AGENT_RUN_MAX_RETRIES: "1",
    AGENT_RUN_RETRY_DELAY: "5ms",
  });
  const lines = await readTranscript(dir.path("out/t"));
  return { dir, run, lines, runDir: dir.path("out/t") };
}

describe("agent-run against a hostile model API", () => {
  test("built", () => {
    expect(existsSync(join("dist", "bundle", "agent-run.mjs")), "run `npm run build`").toBe(true);
  });

  test.each<[string, () => RawStream, RegExp]>([
    [
      "a block at index 200,000,000",
      () => blockAtIndex(200_000_000),
      /content_block_start for block 200000000, but the next block is 0/,
    ],
    ["10,001 blocks", () => manyBlocks(10_001), /the reply has more than 10000 content blocks/],
    [
      "a text delta stream past 8,000,000 characters",
      () => giantText(9, 1_000_000),
      /content block 0 is longer than 8000000 characters/,
    ],
    ["lines that are not JSON", () => garbageLines(1_000_000), /an event's data is not JSON/],
    [
      "a delta for a block never started",
      deltaForMissingBlock,
      /content_block_delta for block 3, which never started/,
    ],
  ])("%s: exit 1, the problem named, the transcript closed", async (_case, stream, problem) => {
    await using server = await startMockHttpServer();
    server.queue(stream(), stream());
    const { dir, run, lines, runDir } = await runAgainst(server.url);
    await using _dir = dir;

    expect(run.signal).toBeNull();
    expect(run.code, run.stderr).toBe(1);
    expect(server.requests).toHaveLength(2);
    expect(run.stderr).toMatch(problem);
    expect(run.stderr).toMatch(/model call failed \(malformed reply: .*\); retry 1 of 1/);
    expect(run.stderr).not.toMatch(/internal error|Unhandled|RangeError/);
    // Nothing the server sent is echoed at length (the SDK logs bad data, clipped).
    expect(run.stderr.length).toBeLessThan(20_000);

    expect(lines[0]).toMatchObject({ type: "system", subtype: "init" });
    expect(lines.filter((line) => line.subtype === "api_retry")).toEqual([
      expect.objectContaining({
        error: "server_error",
        error_message: expect.stringMatching(/^malformed reply: /),
      }),
    ]);
    expect(lines.at(-2)).toMatchObject({ type: "system", subtype: "api_error" });
    expect(lines.at(-1)).toMatchObject({
      type: "result",
      subtype: "error_during_execution",
      status: "error",
      errors: [expect.stringMatching(problem)],
    });
    expect(await readSummary(runDir)).toMatchObject({ status: "error" });
  });

  test("data that is not JSON and holds workflow commands reaches no log line as a command", async () => {
    await using server = await startMockHttpServer();
    const junk = "event: message_start\ndata: x\ndata: ::error::PWNED\ndata: ::add-mask::hello\n\n";
    server.queue({ kind: "raw_stream", body: junk }, { kind: "raw_stream", body: junk });
    const { dir, run } = await runAgainst(server.url);
    await using _dir = dir;

    expect(run.code, run.stderr).toBe(1);
    const lines = `${run.stdout}\n${run.stderr}`.split(/\r\n|\r|\n/);
    expect(lines.filter((line) => /^[\s\u0085]*::/.test(line) || line.includes("##["))).toEqual([]);
    expect(run.stderr).toMatch(/PWNED/); // shown, but inert
  });

  test("a malformed reply once: retried, and the run goes on to complete", async () => {
    await using server = await startMockHttpServer();
    server.queue(blockAtIndex(200_000_000), reply().text("done"));
    const { dir, run, lines } = await runAgainst(server.url);
    await using _dir = dir;

    expect(run.signal).toBeNull();
    expect(run.code, run.stderr).toBe(0);
    expect(lines.filter((line) => line.subtype === "api_retry")).toHaveLength(1);
    expect(lines.at(-1)).toMatchObject({ type: "result", status: "completed" });
  });

  test("tool input nested 3,000 deep: the model gets a tool error and the run goes on", async () => {
    await using server = await startMockHttpServer();
    server.queue(deepToolInput("read_file", 3_000), reply().text("I will send flat input."));
    const { dir, run, lines } = await runAgainst(server.url);
    await using _dir = dir;

    expect(run.signal).toBeNull();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/step 1 read_file: .*\(error, /);
    expect(server.requests).toHaveLength(2);
    const sent = server.requests[1]?.messages as Array<{ role: string; content: unknown }>;
    expect(sent.at(-1)).toEqual({
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_deep",
          content: `read_file: the input nests deeper than ${MAX_TOOL_INPUT_DEPTH} levels, so the call was not run; send the input with flat fields`,
          is_error: true,
          cache_control: { type: "ephemeral" },
        },
      ],
    });
    // The call as the transcript keeps it (and the API got it back): cut one level past the bound.
    const assistant = lines.find((line) => line.type === "assistant");
    expect(nestsDeeperThan(assistant?.message, MAX_TOOL_INPUT_DEPTH + 4)).toBe(false);
    expect(nestsDeeperThan(sent[1], MAX_TOOL_INPUT_DEPTH + 4)).toBe(false);
    expect(lines.at(-1)).toMatchObject({ type: "result", status: "completed", num_turns: 2 });
  });
});
