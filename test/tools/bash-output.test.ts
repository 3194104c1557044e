import { describe, expect, test } from "vitest";
import { createBashTool } from "../../src/tools/bash.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
const ctxFor = (root: string) => ({ workspaceRoot: root, signal: new AbortController().signal });

/** Growth of the resident set allowed during one call: a guard against buffering, not a benchmark. */
const MAX_RSS_GROWTH_BYTES = 50 * 1024 * 1024;

describe("bash output caps", () => {
  test("50 MB of output is capped while it streams: bounded result and memory", async () => {
    await using ws = await tmpWorkspace();
    const bash = createBashTool({ timeoutMs: 60_000, env });
    // Warm up, so the garbage collector's first growth of its young generation is not counted.
    await bash.execute({ command: "yes | head -c 50000000" }, ctxFor(ws.root));
    const rssBefore = process.memoryUsage().rss;

    const result = await bash.execute({ command: "yes | head -c 50000000" }, ctxFor(ws.root));

    const rssGrowth = process.memoryUsage().rss - rssBefore;
    expect(
      result.content.startsWith(`${"y\n".repeat(7500)}\n[... 49969999 characters cut ...]\n`),
    ).toBe(true);
    expect(result.content.endsWith(`\n${"y\n".repeat(7499)}y\n[exit code: 0]`)).toBe(true);
    expect(result.content.length).toBeLessThan(30_100);
    expect(result.recordedContent).toContain("\n[... 48999999 characters cut ...]\n");
    expect(result.recordedContent?.length).toBeLessThan(1_000_100);
    expect(rssGrowth).toBeLessThan(MAX_RSS_GROWTH_BYTES);
  }, 60_000);

  test("`yes` until a 1s timeout: bounded output with the cut marker, then the timeout line", async () => {
    await using ws = await tmpWorkspace();
    const bash = createBashTool({ timeoutMs: 1000, env });
    const rssBefore = process.memoryUsage().rss;

    const result = await bash.execute({ command: "yes" }, ctxFor(ws.root));

    const rssGrowth = process.memoryUsage().rss - rssBefore;
    expect(result.content).toMatch(
      /^(y\n){7500}\n\[\.\.\. \d+ characters cut \.\.\.\]\n[y\n]{15000}\n\[timed out after 1s; process tree killed\]$/,
    );
    expect(result.recordedContent?.length).toBeLessThan(1_000_200);
    expect(result).toMatchObject({ isError: true, timedOut: true, exitCode: null });
    expect(rssGrowth).toBeLessThan(MAX_RSS_GROWTH_BYTES);
  }, 30_000);

  test("output between the two caps: the model gets it cut, the transcript copy whole", async () => {
    await using ws = await tmpWorkspace();
    const bash = createBashTool({
      timeoutMs: 10_000,
      env,
      maxOutputChars: 10,
      maxRecordedChars: 30,
    });

    const result = await bash.execute(
      { command: "printf '%s' abcdefghijklmnopqrst" },
      ctxFor(ws.root),
    );

    expect(result).toEqual({
      content: "abcde\n[... 10 characters cut ...]\npqrst\n[exit code: 0]",
      recordedContent: "abcdefghijklmnopqrst\n[exit code: 0]",
      isError: false,
      exitCode: 0,
      timedOut: false,
    });
  });

  test("output within both caps has no separate transcript copy", async () => {
    await using ws = await tmpWorkspace();
    const bash = createBashTool({ timeoutMs: 10_000, env });

    const result = await bash.execute({ command: "echo hi" }, ctxFor(ws.root));

    expect(result).toEqual({
      content: "hi\n[exit code: 0]",
      isError: false,
      exitCode: 0,
      timedOut: false,
    });
  });

  test("counts characters, not bytes, and keeps multi-byte characters whole across chunks", async () => {
    await using ws = await tmpWorkspace();
    const bash = createBashTool({ timeoutMs: 10_000, env, maxOutputChars: 6, maxRecordedChars: 6 });

    const result = await bash.execute(
      { command: "for i in $(seq 1 20000); do printf 'é€𝄞'; done" },
      ctxFor(ws.root),
    );

    // 𝄞 is two UTF-16 units (4 per round, 80000 in all) and is not split at the head's end.
    expect(result.content).toBe("é€\n[... 79995 characters cut ...]\n€𝄞\n[exit code: 0]");
  });

  test("stderr stays in place among stdout lines while streaming", async () => {
    await using ws = await tmpWorkspace();
    const bash = createBashTool({ timeoutMs: 10_000, env, maxOutputChars: 8 });

    const result = await bash.execute(
      { command: "echo a1; echo b2 >&2; seq 1 1000 >/dev/null; echo c3 >&2; echo d4" },
      ctxFor(ws.root),
    );

    expect(result.content).toBe("a1\nb\n[... 3 characters cut ...]\n3\nd4\n[exit code: 0]");
    expect(result.recordedContent).toBe("a1\nb2\nc3\nd4\n[exit code: 0]");
  });
});
