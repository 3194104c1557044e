import { readFile } from "node:fs/promises";
import { XMLParser } from "fast-xml-parser";
import { beforeAll, describe, expect, test } from "vitest";
import { startMockHttpServer } from "../helpers/mock-http-server.js";
import { httpError } from "../helpers/replies.js";
import { CLAUDE_EXAMPLES, runCli } from "../helpers/run-cli.js";
import { type TmpWorkspace, tmpWorkspace } from "../helpers/tmp-workspace.js";
import { isXmllintUsable, JUNIT_SCHEMAS, schemaErrors, suitesOf } from "../helpers/xmllint.js";

// Issue 16, section 2: strict consumers read the file. Real runs of every kind JUnit shows, turned
// into JUnit by `agent-run report`, validated against Surefire's and Jenkins' own schemas.

const WRITE_HELLO = `- content:
    - { type: tool_use, name: write_file, input: { path: hello.txt, content: "hello\\n" } }
- content: [{ type: text, text: Wrote hello.txt. }]
`;

/** Replies costing $0.30 each at the default model's price: a $0.50 budget stops the third call. */
const COSTLY = `- content: [{ type: tool_use, name: list_files, input: {} }]
  usage: { input_tokens: 100000, output_tokens: 10000 }
- content: [{ type: tool_use, name: list_files, input: {} }]
  usage: { input_tokens: 100000, output_tokens: 10000 }
- content: [{ type: text, text: done }]
  usage: { input_tokens: 100000, output_tokens: 10000 }
`;

const task = (replies: string, extra = "") =>
  `prompt: Go.\nworkspace: ws\nreplies: ${replies}\n${extra}`;

type Attributes = Record<string, string>;
type TestCase = Attributes & { failure?: Attributes; error?: Attributes; skipped?: Attributes };

function testcases(xml: string): Map<string, TestCase> {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: "",
    isArray: (name) => name === "testcase",
  });
  const cases: TestCase[] = parser.parse(xml).testsuites.testsuite.testcase;
  return new Map(cases.map((testcase) => [testcase.name ?? "", testcase]));
}

/** `agent-run report FOLDERS --junit FILE [extra]`, and the file it wrote. */
async function junitOf(dir: TmpWorkspace, folders: string[], extra: string[] = []) {
  const file = dir.path(`junit-${extra.length}.xml`);
  const run = await runCli(["report", ...folders, "--junit", file, ...extra]);
  expect(run.exitCode, run.stderr).toBe(0);
  return readFile(file, "utf8");
}

/** Jenkins' schema for the whole file, Surefire's for each suite (it has no `<testsuites>`). */
function expectValid(xml: string): void {
  expect(schemaErrors(xml, JUNIT_SCHEMAS.jenkins)).toBe("");
  const suites = suitesOf(xml);
  expect(suites).toHaveLength(1);
  for (const suite of suites) expect(schemaErrors(suite, JUNIT_SCHEMAS.surefire)).toBe("");
}

describe.skipIf(!isXmllintUsable)("JUnit against Surefire's and Jenkins' schemas", () => {
  let dir: TmpWorkspace;
  let folders: string[];
  beforeAll(async () => {
    dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "hello.yaml": WRITE_HELLO,
        "costly.yaml": COSTLY,
        "checks.yaml": task(
          "hello.yaml",
          'checks:\n  - file_exists: hello.txt\n  - file_contains: { path: hello.txt, text: "bye" }\n',
        ),
        "short.yaml": task("hello.yaml", "limits: { max_steps: 1 }\n"),
        "spender.yaml": task("costly.yaml"),
        "unspent.yaml": task("costly.yaml"),
        "refused.yaml": "prompt: Go.\nworkspace: ws\n",
        "unsent.yaml": "prompt: Go.\nworkspace: ws\n",
      },
    });
    const graded = dir.path("graded");
    const budget = dir.path("budget");
    const refused = dir.path("refused");
    const paths = (...names: string[]) => names.map((name) => dir.path(`${name}.yaml`));
    await runCli(["--offline", ...paths("checks", "short"), "--out", graded]);
    await runCli([
      ...["--offline", "-j", "1", "--budget-usd", "0.5"],
      ...[...paths("spender", "unspent"), "--out", budget],
    ]);
    await using server = await startMockHttpServer();
    server.queue(
      httpError(401, {
        type: "error",
        error: { type: "authentication_error", message: "invalid x-api-key" },
      }),
    );
    await runCli(["-j", "1", ...paths("refused", "unsent"), "--out", refused], {
      env: { ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: server.url },
    });
    folders = [graded, budget, refused];
    return () => dir[Symbol.asyncDispose]();
  });

  test("the offline examples (all passing) validate, classname naming each task file", async () => {
    const out = dir.path("examples");
    expect((await runCli(["--offline", ...CLAUDE_EXAMPLES, "--out", out])).exitCode).toBe(0);
    const xml = await junitOf(dir, [out]);

    expectValid(xml);
    expect([...testcases(xml).values()].map((testcase) => testcase.classname)).toEqual([
      "tasks/add-farewell",
      "tasks/fix-failing-test",
      "tasks/rename-function",
    ]);
  });

  test("failed checks, max_steps, a budget stop, a budget skip and a refused key validate", async () => {
    const xml = await junitOf(dir, folders);
    const cases = testcases(xml);
    const shown = (name: string) => {
      const testcase = cases.get(name);
      for (const element of ["failure", "error", "skipped"] as const) {
        const outcome = testcase?.[element];
        if (outcome !== undefined) return [element, outcome.type];
      }
      return ["passed", undefined];
    };

    expectValid(xml);
    expect(
      ["checks", "short", "spender", "unspent", "refused", "unsent"].map((name) => [
        name,
        ...shown(name),
      ]),
    ).toEqual([
      ["checks", "failure", "failed_checks"],
      ["short", "failure", "max_steps"],
      ["spender", "failure", "budget"],
      // Surefire's schema gives <skipped> no type.
      ["unspent", "skipped", undefined],
      ["refused", "error", "error"],
      // Not run because another task's key was refused: an error, never a green skip.
      ["unsent", "error", "refused_key"],
    ]);
    expect(cases.get("checks")?.classname).toBe(dir.path("checks"));
    expect(cases.get("unspent")?.skipped?.message).toBe(
      "the batch budget is spent ($0.60 of $0.50); raise --budget-usd",
    );
    expect(xml).toMatch(
      /<testsuite name="agent-run" tests="6" failures="3" errors="2" skipped="1"/,
    );
  });

  test("--junit-file-line adds the task file and the failed check's line, outside both schemas", async () => {
    const xml = await junitOf(dir, folders, ["--junit-file-line"]);
    const cases = testcases(xml);

    expect([cases.get("checks")?.file, cases.get("checks")?.line]).toEqual([
      dir.path("checks.yaml"),
      "6",
    ]);
    expect([cases.get("short")?.file, cases.get("short")?.line]).toEqual([
      dir.path("short.yaml"),
      undefined,
    ]);
    expect(schemaErrors(xml, JUNIT_SCHEMAS.jenkins)).toMatch(/attribute 'file' is not allowed/);
  });
});
