import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { oneLine } from "../../src/format.js";
import { elementNames, htmlTables, listItems, liveConstructs, renderGfm } from "../helpers/gfm.js";
import { readSummary } from "../helpers/outputs.js";
import { runCli } from "../helpers/run-cli.js";

// The Markdown agent-run writes for GitHub to render (the job summary, `agent-run report`'s
// output), rendered as GFM: tables keep their cells, and hostile names, messages and file names
// (the model's words, a task author's check names) show as literal text.

const HOSTILE =
  "pipe | back`tick` <script>alert(1)</script> *star* _under_ ~~del~~ [x](https://e.x) " +
  "![i](https://e.x/p.png) https://e.x www.e.x a@b.c &amp; [^1] - [ ] \\ end\nnext line";
const FILES = ["p|ipe `t` *e*.txt", "[l](https:/e.x)<img src=x>@e.x.txt", "new\nline <b>.txt"];
const TASK = "hostile";

let dir: string;
let jobSummary: string;
let reportStdout: string;
let runStdout: string;
let checks: { name: string; message: string; passed: boolean }[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "agent-run-gfm-"));
  const writes = FILES.map((path) => ({
    type: "tool_use",
    name: "write_file",
    input: { path, content: "x\n" },
  }));
  const replies = [{ content: writes }, { content: [{ type: "text", text: HOSTILE }] }];
  const task = {
    name: TASK,
    prompt: "Go.",
    workspace: "ws",
    replies: "r.json",
    checks: [
      { file_exists: "missing <b>*x*</b>|`y`.txt", name: HOSTILE },
      { final_text_matches: "never-matches" },
      { run: "printf '%s' '*a* | <i>b</i>'; exit 1", name: "run | `x` [y](z)" },
    ],
  };
  await mkdir(join(dir, "ws"));
  await writeFile(join(dir, "ws/a.txt"), "a\n");
  await writeFile(join(dir, "r.json"), JSON.stringify(replies));
  await writeFile(join(dir, "t.yaml"), JSON.stringify(task));
  const run = await runCli(["--offline", join(dir, "t.yaml"), "--out", join(dir, "out")], {
    env: {
      GITHUB_ACTIONS: "true",
      GITHUB_STEP_SUMMARY: join(dir, "summary.md"),
      GITHUB_OUTPUT: join(dir, "outputs"),
    },
  });
  expect(run.exitCode).toBe(1);
  runStdout = run.stdout;
  jobSummary = await readFile(join(dir, "summary.md"), "utf8");
  reportStdout = (await runCli(["report", join(dir, "out")])).stdout;
  checks = (await readSummary(join(dir, "out", TASK))).checks as typeof checks;
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A failure line as a reader sees it: the text, on one line (`@` after a zero-width space). */
const shownFailure = (check: { name: string; message: string }) =>
  `${TASK}: ${check.name.replace(/\s+/g, " ")} — ${oneLine(check.message, 200)}`.replaceAll(
    "@",
    "\u200b@",
  );

test("unescaped, the hostile text is live Markdown (what the checks below would catch)", () => {
  const types = new Set(
    liveConstructs(`- ${HOSTILE}\n\n| a | b |\n| - | - |\n| ${FILES[1]} | x |`).map((c) => c.type),
  );
  for (const type of [
    "link",
    "image",
    "codeText",
    "emphasis",
    "htmlText",
    "strikethrough",
    "literalAutolink",
  ]) {
    expect(types, type).toContain(type);
  }
  expect(htmlTables(renderGfm(`| a | b |\n| - | - |\n| ${FILES[0]} | x |`))[0]?.[1]).toHaveLength(
    2,
  );
});

describe.each([
  ["the job summary", () => jobSummary],
  ["agent-run report's output", () => reportStdout],
])("%s rendered as GFM", (_, markdown) => {
  test("no link, image, HTML, code, emphasis or autolink is live but the summary blocks", () => {
    const live = liveConstructs(markdown());
    const html = live.filter((construct) => construct.type === "htmlFlow");
    expect(live.filter((construct) => construct.type !== "htmlFlow")).toEqual([]);
    for (const block of html) {
      expect(block.source).toMatch(/^(<details><summary>[^<>]*<\/summary>|<\/details>)$/);
    }
    const elements = elementNames(renderGfm(markdown()));
    const allowed = ["h2", "h3", "p", "table", "thead", "tbody", "tr", "th", "td", "ul", "li"];
    expect(
      [...elements].filter((name) => ![...allowed, "details", "summary"].includes(name)),
    ).toEqual([]);
  });

  test("the report table: 9 cells in every row, the task's values, then the totals", () => {
    const [table] = htmlTables(renderGfm(markdown()));
    expect(table?.map((row) => row.length)).toEqual([9, 9, 9]);
    expect(table?.[0]).toEqual([
      "task",
      "status",
      "passed",
      "checks",
      "steps",
      "tokens",
      "cost",
      "files",
      "duration",
    ]);
    expect(table?.[1]?.slice(0, 6)).toEqual([
      TASK,
      "completed",
      "no",
      "0/3",
      "2",
      expect.any(String),
    ]);
    expect(table?.[2]?.slice(0, 4)).toEqual(["total", "", "0/1", "0/3"]);
  });

  test("each failed check is one list item, its name and message as literal text", () => {
    expect(checks.filter((check) => !check.passed)).toHaveLength(3);
    expect(listItems(renderGfm(markdown()))).toEqual(checks.map(shownFailure));
  });
});

describe("the job summary's changed files", () => {
  test("3 cells per row; the hostile file names as text", async () => {
    const [, files] = htmlTables(renderGfm(jobSummary));
    const changed = (await readSummary(join(dir, "out", TASK))).changed_files as { path: string }[];

    expect(files?.map((row) => row.length)).toEqual([3, 3, 3, 3]);
    expect(files?.slice(1).map((row) => row[0])).toEqual(
      changed.map((file) => file.path.replace(/\s+/g, " ").replaceAll("@", "\u200b@")),
    );
    expect(changed.map((file) => file.path).sort()).toEqual([...FILES].sort());
  });
});

describe("the log's table (plain text on stdout)", () => {
  test("failures carry the names and messages as they are, without Markdown escapes", () => {
    const failures = runStdout.split("\n").filter((line) => line.startsWith(`- ${TASK}: `));
    expect(failures).toEqual(
      checks.map((check) => `- ${shownFailure(check).replaceAll("\u200b@", "@")}`),
    );
  });
});
