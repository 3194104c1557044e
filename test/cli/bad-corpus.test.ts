import { existsSync, readdirSync, readFileSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { runCli } from "../helpers/run-cli.js";

// Issue 5, section 6: every malformed input gives exit 2, a message naming the file and the line,
// no stack trace, and writes nothing.

const CORPUS = "fixtures/bad-tasks";
const TRANSCRIPTS = "fixtures/bad-transcripts";

/** One mistake per file; the duplicate-names/ pair, replies/ and ws/ are folders, not listed. */
const corpusFiles = readdirSync(CORPUS, { withFileTypes: true })
  .filter((entry) => entry.isFile() && entry.name.endsWith(".yaml"))
  .map((entry) => entry.name)
  .sort();

/** Task files whose mistake sits in another file: the message names that file instead. */
const NAMED_INSTEAD: Record<string, string> = {
  "replies-malformed.yaml": `${CORPUS}/replies/malformed.yaml`,
};

/** Files that cannot carry a readable "# Mistake:" first line (no text, or not UTF-8/Latin-1). */
const WITHOUT_COMMENT = new Set(["binary.yaml", "empty.yaml", "utf16.yaml"]);

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** `file:line:col: ` at the start of a line of stderr. */
const located = (file: string) => new RegExp(`^${escapeRegExp(file)}:\\d+:\\d+: \\S`, "m");

/** A line of a JavaScript stack trace (`    at fn (file:1:2)`). */
const STACK_LINE = /\n\s+at /;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "agent-run-bad-corpus-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("bad task files: the corpus in fixtures/bad-tasks", () => {
  test("has at least 50 files, each starting with a distinct one-line '# Mistake:' comment", () => {
    expect(corpusFiles.length).toBeGreaterThanOrEqual(50);
    const mistakes = corpusFiles
      .filter((file) => !WITHOUT_COMMENT.has(file))
      .map((file) => {
        // Latin-1 reads every byte, so not-utf8.yaml's comment reads too; CR ends a line as well.
        const text = readFileSync(join(CORPUS, file), "latin1");
        return text.split(/\r\n|\r|\n/, 1)[0] ?? "";
      });
    for (const mistake of mistakes) expect(mistake).toMatch(/^# Mistake: \S/);
    expect(new Set(mistakes).size).toBe(mistakes.length);
  });

  test.each(corpusFiles)(
    "%s: exit 2, one problem at file:line:col, no stack trace, no output folder",
    async (file) => {
      const out = join(dir, "out");
      const run = await runCli(["--offline", `${CORPUS}/${file}`, "--out", out]);

      expect(run.exitCode).toBe(2);
      expect(run.stderr).toContain("agent-run: 1 problem in the task files; nothing was run");
      expect(run.stderr).toMatch(located(NAMED_INSTEAD[file] ?? `${CORPUS}/${file}`));
      expect(run.stderr).not.toMatch(STACK_LINE);
      expect(run.stderr).not.toContain("internal error");
      expect(run.stdout).toBe("");
      expect(existsSync(out)).toBe(false);
    },
  );

  test("duplicate-names/: two files valid alone share a name; each is reported, naming the other", async () => {
    const a = `${CORPUS}/duplicate-names/a.yaml`;
    const b = `${CORPUS}/duplicate-names/b.yaml`;
    const out = join(dir, "out");
    const run = await runCli(["--offline", a, b, "--out", out]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("agent-run: 2 problems in the task files; nothing was run");
    expect(run.stderr).toMatch(
      new RegExp(`^${escapeRegExp(a)}:2:7: name: .*${escapeRegExp(b)}`, "m"),
    );
    expect(run.stderr).toMatch(
      new RegExp(`^${escapeRegExp(b)}:2:7: name: .*${escapeRegExp(a)}`, "m"),
    );
    expect(run.stderr).not.toMatch(STACK_LINE);
    expect(existsSync(out)).toBe(false);
  });

  test("a 10 MB task file is refused at once, by its size, before it is read", async () => {
    const file = join(dir, "huge.yaml");
    const padding = "# padding to make the file huge\n".repeat(330_000);
    await writeFile(file, `prompt: Fix the failing test\nworkspace: .\n${padding}`);
    const out = join(dir, "out");

    const started = performance.now();
    const run = await runCli(["--offline", file, "--out", out]);
    const elapsedMs = performance.now() - started;

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(
      new RegExp(
        `^${escapeRegExp(file)}:1:1: is 10\\.\\d MB, over the 1 MB limit for task files`,
        "m",
      ),
    );
    expect(run.stderr).not.toMatch(STACK_LINE);
    expect(existsSync(out)).toBe(false);
    expect(elapsedMs).toBeLessThan(2_000);
  });

  test("brackets nested 10,000 deep (parser recursion) give exit 2 with a place, not a crash", async () => {
    const file = join(dir, "deep.yaml");
    const depth = 10_000;
    await writeFile(
      file,
      `prompt: Fix the failing test\nworkspace: .\nchecks: ${"[".repeat(depth)}${"]".repeat(depth)}\n`,
    );
    const out = join(dir, "out");
    const run = await runCli(["--offline", file, "--out", out]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(located(file));
    expect(run.stderr).not.toMatch(STACK_LINE);
    expect(existsSync(out)).toBe(false);
  });
});

/** Each malformed transcript, the line its error names, and what the message says. */
const TRANSCRIPT_CASES: [file: string, line: number, message: string][] = [
  ["truncated-line.jsonl", 3, "not valid JSON: "],
  ["blank-line.jsonl", 4, "not valid JSON: "],
  ["line-not-an-object.jsonl", 3, 'expected a JSON object with a string "type"'],
  ["unknown-line-type.jsonl", 4, 'unknown line type "tool_progress"'],
  [
    "newer-schema-version.jsonl",
    1,
    "schema_version 4 is newer than this agent-run understands (3); upgrade agent-run",
  ],
  ["schema-version-missing.jsonl", 1, "schema_version must be a positive integer"],
  ["missing-init-line.jsonl", 1, "the first line must be the system/init line"],
  ["empty.jsonl", 1, "the first line must be the system/init line (empty file)"],
  ["line-after-result.jsonl", 6, "a line after the result line"],
  ["assistant-wrong-field-type.jsonl", 2, "assistant line: step: "],
  ["user-content-not-a-list.jsonl", 3, "user line: message.content: "],
  ["result-unknown-subtype.jsonl", 5, "result line: subtype: "],
  ["result-unknown-status.jsonl", 5, "result line: status: "],
  ["init-without-limits.jsonl", 1, "the init line does not describe the task fully (limits: "],
  ["name-escapes-out.jsonl", 1, 'task.name: "../../../x" is not a task name (letters, '],
  ["name-with-line-break.jsonl", 1, 'task.name: "a\\n::error::pwned" is not a task name ('],
];

describe("bad transcripts: replay and resume name the file and the line", () => {
  test("every file in fixtures/bad-transcripts has a case here", () => {
    const files = readdirSync(TRANSCRIPTS).filter((file) => file.endsWith(".jsonl"));

    expect(TRANSCRIPT_CASES.map(([file]) => file).sort()).toEqual(files.sort());
  });

  test.each(TRANSCRIPT_CASES)("replay %s: exit 2 at line %i", async (file, line, message) => {
    const out = join(dir, "replays");
    const run = await runCli(["replay", `${TRANSCRIPTS}/${file}`, "--out", out]);

    expect(run.exitCode).toBe(2);
    // The init-line check names the file by its absolute path, which ends the same way.
    expect(run.stderr).toContain(`${TRANSCRIPTS}/${file}:${line}: ${message}`);
    expect(run.stderr).not.toMatch(STACK_LINE);
    expect(existsSync(out)).toBe(false);
  });

  test.each(TRANSCRIPT_CASES)(
    "resume of a run holding %s: exit 2 at line %i, nothing moved",
    async (file, line, message) => {
      const folder = join(dir, "runs", "fix-failing-test");
      await mkdir(folder, { recursive: true });
      const transcript = join(folder, "transcript.jsonl");
      await copyFile(`${TRANSCRIPTS}/${file}`, transcript);
      const before = await readFile(transcript);

      const run = await runCli(["resume", folder, "--offline"]);

      expect(run.exitCode).toBe(2);
      expect(run.stderr).toContain(`${transcript}:${line}: ${message}`);
      expect(run.stderr).not.toMatch(STACK_LINE);
      expect(await readdir(folder)).toEqual(["transcript.jsonl"]);
      expect(await readFile(transcript)).toEqual(before);
    },
  );

  test("a partial last line (a killed run) is dropped by resume, not reported", async () => {
    const folder = join(dir, "runs", "fix-failing-test");
    await mkdir(folder, { recursive: true });
    // line-after-result.jsonl with its stray last line cut short, as a kill mid-write leaves it.
    const text = await readFile(`${TRANSCRIPTS}/line-after-result.jsonl`, "utf8");
    await writeFile(join(folder, "transcript.jsonl"), text.slice(0, text.length - 40));

    const run = await runCli(["resume", folder, "--offline"]);

    // What is left is a complete run, so resume refuses for that reason, not for a bad line.
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("this run completed; there is nothing to resume");
    expect(run.stderr).not.toContain("not valid JSON");
  });
});

describe("bad summary.json: report names the file", () => {
  test.each([
    ["not-json", "not valid JSON: "],
    ["wrong-field-type", "steps: "],
    ["name-with-line-break", 'name: "fix\\n::error::pwned" is not a task name ('],
  ])("report on a run whose summary.json is %s: exit 2", async (name, message) => {
    const folder = `${TRANSCRIPTS}/summaries/${name}`;
    const json = join(dir, "report.json");
    const run = await runCli(["report", folder, "--json", json]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(`agent-run: ${folder}/summary.json: ${message}`);
    expect(run.stderr).not.toMatch(STACK_LINE);
    expect(run.stdout).toBe("");
    expect(existsSync(json)).toBe(false);
  });
});
