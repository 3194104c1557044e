import { readFile, writeFile } from "node:fs/promises";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { describe, expect, test } from "vitest";
import { readSummary, readTranscript } from "../helpers/outputs.js";
import { runCli } from "../helpers/run-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const REPLIES = `- content:
    - { type: tool_use, name: write_file, input: { path: hello.txt, content: "hello\\n" } }
- content: [{ type: text, text: Wrote hello.txt. }]
`;

function taskYaml(checks: string): string {
  return `prompt: Write hello.txt.\nworkspace: ws\nreplies: r.yaml\nchecks:\n${checks}`;
}

describe("checks grade a run; reports show it", () => {
  test("a failing check makes the task fail (exit 1) and shows in the table, the transcript and JUnit", async () => {
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "r.yaml": REPLIES,
        "good.yaml": taskYaml('  - file_contains: { path: hello.txt, text: "hello" }\n'),
        "bad.yaml": taskYaml(
          '  - file_exists: hello.txt\n  - file_contains: { path: hello.txt, text: "goodbye" }\n    name: says goodbye\n',
        ),
      },
    });
    const run = await runCli([
      "--offline",
      dir.path("good.yaml"),
      dir.path("bad.yaml"),
      "--out",
      dir.path("runs"),
    ]);

    expect(run.exitCode).toBe(1);
    expect(run.stdout).toMatch(/^\| bad +\| completed \| no +\| +1\/2 \|/m);
    expect(run.stdout).toMatch(/^\| good +\| completed \| yes +\| +1\/1 \|/m);
    expect(run.stdout).toContain('- bad: says goodbye — hello.txt does not contain "goodbye"');
    expect(run.stderr).toContain(
      '[bad] check FAILED: says goodbye (hello.txt does not contain "goodbye")',
    );
    const summary = await readSummary(dir.path("runs/bad"));
    expect(summary).toMatchObject({ status: "completed", passed: false });
    expect(summary.checks).toMatchObject([
      { kind: "file_exists", passed: true, line: 5 },
      { name: "says goodbye", kind: "file_contains", passed: false, line: 6 },
    ]);
    const lines = await readTranscript(dir.path("runs/bad"));
    expect(lines.slice(-3).map((line) => line.type)).toEqual(["check", "check", "result"]);
    expect(JSON.parse(await readFile(dir.path("runs/report.json"), "utf8"))).toMatchObject({
      totals: { tasks: 2, passed: 1 },
    });

    const report = await runCli(["report", dir.path("runs"), "--junit", dir.path("junit.xml")]);
    expect(report.exitCode).toBe(0);
    const xml = await readFile(dir.path("junit.xml"), "utf8");
    expect(XMLValidator.validate(xml)).toBe(true);
    const suites = new XMLParser({ ignoreAttributes: false }).parse(xml).testsuites;
    expect(suites["@_tests"]).toBe("2");
    expect(suites["@_failures"]).toBe("1");
    expect(xml).toContain(`<testcase classname="${dir.path("bad")}" name="bad" time="`);
    expect(xml).toMatch(
      /name="bad" time="[\d.]+">\s*<failure message="status: completed; failed checks: says goodbye" type="failed_checks"/,
    );
  });

  test("replay re-grades an old run with the checks of a changed task file, for free", async () => {
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "r.yaml": REPLIES,
        "t.yaml": taskYaml("  - file_exists: hello.txt\n"),
      },
    });
    expect(
      (await runCli(["--offline", dir.path("t.yaml"), "--out", dir.path("runs")])).exitCode,
    ).toBe(0);
    await writeFile(
      dir.path("t.yaml"),
      taskYaml('  - file_contains: { path: hello.txt, text: "HELLO" }\n'),
    );

    const fromTranscript = await runCli([
      "replay",
      dir.path("runs/t/transcript.jsonl"),
      "--out",
      dir.path("replays"),
    ]);
    const regraded = await runCli([
      "replay",
      dir.path("runs/t/transcript.jsonl"),
      "--task",
      dir.path("t.yaml"),
      "--out",
      dir.path("regraded"),
    ]);

    expect(fromTranscript.exitCode).toBe(0);
    expect(regraded.exitCode).toBe(1);
    expect(await readSummary(dir.path("regraded/t"))).toMatchObject({
      passed: false,
      checks: [
        { kind: "file_contains", passed: false, message: 'hello.txt does not contain "HELLO"' },
      ],
    });
  });
});

describe("checks that assert nothing changed, and regex flags", () => {
  test("changed_files: { max: 0 } passes a run that changed nothing and fails one that did", async () => {
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\nb\n",
        "r.yaml": REPLIES,
        "idle.yaml": "- content: [{ type: text, text: Nothing to do. }]\n",
        "changes.yaml": taskYaml(
          '  - changed_files: { max: 0 }\n  - file_matches: { path: hello.txt, regex: "(?is)^HELLO.$" }\n',
        ),
        "nothing.yaml":
          'prompt: Look only.\nworkspace: ws\nreplies: idle.yaml\nchecks:\n  - changed_files: { max: 0 }\n  - file_matches: { path: a.txt, regex: "(?m)^b$" }\n',
      },
    });

    const run = await runCli([
      "--offline",
      dir.path("changes.yaml"),
      dir.path("nothing.yaml"),
      "--out",
      dir.path("runs"),
    ]);

    expect(run.exitCode).toBe(1);
    const checksOf = async (name: string) =>
      (
        (await readSummary(dir.path(`runs/${name}`))).checks as {
          passed: boolean;
          message: string;
        }[]
      ).map(({ passed, message }) => ({ passed, message }));
    expect(await checksOf("nothing")).toEqual([
      { passed: true, message: "no files changed, as expected" },
      { passed: true, message: expect.stringContaining("a.txt matches") },
    ]);
    expect(await checksOf("changes")).toEqual([
      { passed: false, message: "1 file changed, more than max 0" },
      { passed: true, message: expect.stringContaining("hello.txt matches") },
    ]);
  });

  test("a flag other than i, m and s is refused when the task file is loaded, naming the syntax", async () => {
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "r.yaml": REPLIES,
        "t.yaml": taskYaml('  - final_text_matches: "(?x) wrote"\n'),
      },
    });

    const run = await runCli(["--offline", dir.path("t.yaml"), "--out", dir.path("runs")]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(
      "checks[0].final_text_matches: invalid regular expression: flag x in (?x) is not supported; a check's regex is a JavaScript regular expression, optionally starting with one flag group: (?i) ignores case",
    );
  });
});
