import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { TranscriptError } from "../../src/errors.js";
import { TRANSCRIPT_VERSION } from "../../src/transcript/line-schemas.js";
import { isComplete, parseTranscript, readTranscript } from "../../src/transcript/reader.js";
import { runCli } from "../helpers/run-cli.js";

let dir: string;
/** The transcript of a real offline run of tasks/fix-failing-test.yaml, as written. */
let text: string;
let rows: string[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "agent-run-reader-"));
  const run = await runCli(["--offline", "tasks/fix-failing-test.yaml", "--out", join(dir, "out")]);
  expect(run.exitCode).toBe(0);
  text = await readFile(join(dir, "out", "fix-failing-test", "transcript.jsonl"), "utf8");
  rows = text.trimEnd().split("\n");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes `content` as a transcript file of its own and returns its path. */
async function transcriptFile(name: string, content: string): Promise<string> {
  const file = join(dir, `${name}.jsonl`);
  await writeFile(file, content);
  return file;
}

async function readFailure(file: string): Promise<string> {
  const error = await readTranscript(file).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TranscriptError);
  return (error as TranscriptError).message;
}

function withField(row: string | undefined, fields: Record<string, unknown>): string {
  return JSON.stringify({ ...JSON.parse(row ?? "{}"), ...fields });
}

describe("readTranscript on a transcript the real run wrote", () => {
  test("returns every line, validated, from init to result", async () => {
    const lines = await readTranscript(join(dir, "out", "fix-failing-test", "transcript.jsonl"));

    expect(lines.map((line) => line.type)).toEqual([
      "system",
      ...Array.from({ length: 4 }, () => ["assistant", "user"]).flat(),
      "assistant",
      "check",
      "check",
      "check",
      "result",
    ]);
    expect(lines[0]).toMatchObject({ subtype: "init", schema_version: TRANSCRIPT_VERSION });
    expect(lines.at(-1)).toMatchObject({ type: "result", status: "completed", num_turns: 5 });
    expect(new Set(lines.map((line) => line.session_id)).size).toBe(1);
    expect(isComplete(lines)).toBe(true);
  });

  test("keeps fields the schemas do not name (exit_code, changed_files)", async () => {
    const lines = parseTranscript(text, "t.jsonl");

    expect(lines.find((line) => line.type === "user")).toHaveProperty("exit_code", 0);
    expect(lines.at(-1)).toHaveProperty("changed_files", [
      expect.objectContaining({ path: "src/math.js", status: "modified" }),
    ]);
  });

  test("a run killed between lines reads as the lines it wrote, not complete", async () => {
    const file = await transcriptFile("killed", `${rows.slice(0, 4).join("\n")}\n`);

    const lines = await readTranscript(file);

    expect(lines.map((line) => line.type)).toEqual(["system", "assistant", "user", "assistant"]);
    expect(isComplete(lines)).toBe(false);
  });

  test("an init line alone is a transcript too (killed before the first reply)", async () => {
    const lines = parseTranscript(`${rows[0]}\n`, "t.jsonl");

    expect(lines).toHaveLength(1);
    expect(isComplete(lines)).toBe(false);
  });
});

describe("readTranscript refuses a bad file with the file, the line and the reason", () => {
  test("a truncated last line (killed mid-write)", async () => {
    const partial = `${rows.slice(0, 6).join("\n")}\n${rows[6]?.slice(0, 40)}`;
    const file = await transcriptFile("truncated", partial);

    expect(await readFailure(file)).toBe(
      `${file}:7: not valid JSON (a run killed mid-write leaves a partial last line)`,
    );
  });

  test("a garbage line in the middle", async () => {
    const lines = [...rows.slice(0, 2), "<<<<<<< HEAD", ...rows.slice(2)];
    const file = await transcriptFile("garbage", `${lines.join("\n")}\n`);

    expect(await readFailure(file)).toMatch(
      new RegExp(`^${escapeRegExp(file)}:3: not valid JSON: .*Unexpected token`),
    );
  });

  test("a newer schema_version", async () => {
    const file = await transcriptFile(
      "newer",
      `${[withField(rows[0], { schema_version: TRANSCRIPT_VERSION + 1 }), ...rows.slice(1)].join("\n")}\n`,
    );

    expect(await readFailure(file)).toBe(
      `${file}:1: schema_version ${TRANSCRIPT_VERSION + 1} is newer than this agent-run understands (${TRANSCRIPT_VERSION}); upgrade agent-run`,
    );
  });

  test("a schema_version that is no version", async () => {
    const file = await transcriptFile(
      "version-zero",
      `${withField(rows[0], { schema_version: 0 })}\n`,
    );

    expect(await readFailure(file)).toBe(
      `${file}:1: schema_version must be a positive integer, not 0`,
    );
  });

  test("a missing init line", async () => {
    const file = await transcriptFile("no-init", `${rows.slice(1).join("\n")}\n`);

    expect(await readFailure(file)).toBe(`${file}:1: the first line must be the system/init line`);
  });

  test("an empty file", async () => {
    const file = await transcriptFile("empty", "");

    expect(await readFailure(file)).toBe(
      `${file}:1: the first line must be the system/init line (empty file)`,
    );
  });

  test("a line that is JSON but not of its type's shape names the field", async () => {
    const lines = [rows[0], withField(rows[1], { step: "one" }), ...rows.slice(2)];
    const file = await transcriptFile("bad-step", `${lines.join("\n")}\n`);

    expect(await readFailure(file)).toBe(
      `${file}:2: assistant line: step: Invalid input: expected number, received string`,
    );
  });

  test("a line of an unknown type", async () => {
    const lines = [rows[0], JSON.stringify({ type: "telemetry", at: "now" }), ...rows.slice(1)];
    const file = await transcriptFile("unknown-type", `${lines.join("\n")}\n`);

    expect(await readFailure(file)).toBe(`${file}:2: unknown line type "telemetry"`);
  });

  test("a line after the result line", async () => {
    const file = await transcriptFile("after-result", `${[...rows, rows[1]].join("\n")}\n`);

    expect(await readFailure(file)).toBe(
      `${file}:${rows.length + 1}: a line after the result line`,
    );
  });

  test("a file that does not exist", async () => {
    const file = join(dir, "missing.jsonl");

    expect(await readFailure(file)).toMatch(
      new RegExp(`^cannot read the transcript ${escapeRegExp(file)}: no such file$`),
    );
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
