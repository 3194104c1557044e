import { describe, expect, test } from "vitest";
import { jobSummary } from "../../src/report/job-summary.js";
import { markdownText } from "../../src/report/markdown-text.js";
import type { TaskSummary } from "../../src/report/summary.js";

// Issue 14, finding 9: text from runs and files (file names, the model's words, check messages) is
// shown in GitHub's Markdown as text. No CommonMark/GFM renderer is a dependency, so the checks
// below read the escaped text the way a renderer would: every character that could start inline
// syntax must be escaped by a backslash or written as an entity, and unescaping gives the text back.

const HOSTILE = [
  "[click](https://evil.example/x) and ![img](https://evil.example/p.png)",
  "<img src=x onerror=alert(1)> <script>alert(1)</script> <!-- c -->",
  "<https://evil.example> https://evil.example/a www.evil.example a@evil.example",
  "*em* **strong** _em_ __init__ ~~gone~~ `code` ``two``",
  "&copy; &#x41; &amp; a|b|c \\ trailing backslash \\",
  "$x^2$ :smile: [^1] [ref]: https://evil.example",
  "line\n# heading\n- item\r\n::error::pwned\r::add-mask::secret",
  "\u001b[31mred\u001b[0m \u0007bell",
];

/** Characters that may appear unescaped in the output: inert punctuation, letters, spaces. */
const ALWAYS_INERT = new Set([..."!\"%'()+,-/;=?^{}"]);

/** Undoes `markdownText` the way CommonMark reads it: `\X` is X, the three entities are chars (and the zero-width space before `@` goes). */
function readBack(text: string): string {
  return text
    .replaceAll("\u200b\\@", "\\@")
    .replace(/\\([!-/:-@[-`{-~])|&(lt|gt|amp);/g, (_, char?: string, entity?: string) =>
      char !== undefined ? char : ({ lt: "<", gt: ">", amp: "&" }[entity ?? "amp"] ?? ""),
    );
}

/** The positions of ASCII punctuation that a renderer could read as syntax (unescaped, active). */
function liveSyntax(text: string): string[] {
  const live: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i] ?? "";
    if (char === "\\") {
      i++; // an escape: the next character is literal
      continue;
    }
    if (!/[!-/:-@[-`{-~]/.test(char) || ALWAYS_INERT.has(char)) continue;
    if (char === "&" && /^&(lt|gt|amp);/.test(text.slice(i))) continue;
    if (
      char === "_" &&
      /[A-Za-z0-9]/.test(text[i - 1] ?? "") &&
      /[A-Za-z0-9]/.test(text[i + 1] ?? "")
    )
      continue;
    if (char === "." && text.slice(Math.max(0, i - 3), i).toLowerCase() !== "www") continue;
    live.push(`${char} at ${i}: …${text.slice(Math.max(0, i - 10), i + 10)}…`);
  }
  return live;
}

describe("markdownText", () => {
  test.each(HOSTILE)("shows %j as text: one line, nothing live, and it reads back", (text) => {
    const shown = markdownText(text);

    expect(shown).not.toMatch(/[\r\n]/);
    expect(shown).not.toMatch(/[<>]/);
    expect(liveSyntax(shown)).toEqual([]);
    // GFM links a@b.c after escapes are read: the character before every @ must end the address.
    expect(shown.match(/.(?=\\@)/gu) ?? []).toEqual(
      Array(text.split("@").length - 1).fill("\u200b"),
    );
    const expected = text
      .replace(/\s+/g, " ")
      .replace(/\p{Cc}/gu, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
    expect(readBack(shown)).toBe(expected);
  });

  test("leaves ordinary names, figures and intraword underscores readable", () => {
    expect(markdownText("fix-bug max_steps 3.2s src/a.js (done!)")).toBe(
      "fix-bug max_steps 3.2s src/a.js (done!)",
    );
    expect(markdownText("www.x.y __init__")).toBe("www\\.x.y \\_\\_init\\_\\_");
  });
});

describe("jobSummary", () => {
  test("a file name with a line break, a pipe and HTML stays in its row's first cell, as text", () => {
    const path = "a|b\n| x | y | z |\n<img src=x>[l](http://e.x).txt";
    const summary = {
      name: "t",
      status: "completed",
      changedFiles: [{ path, status: "added", additions: 1, deletions: 0, binary: false }],
      costUsd: null,
      durationMs: 5,
    } as unknown as TaskSummary;

    const text = jobSummary("report", [summary]);

    const rows = text.split("\n").filter((line) => line.startsWith("| ") && line.includes("added"));
    expect(rows).toHaveLength(1);
    const cells = (rows[0] ?? "").split(/(?<!\\)\|/).slice(1, -1);
    expect(cells.map((cell) => cell.trim())).toEqual([markdownText(path), "added", "+1 −0"]);
    expect(readBack(cells[0]?.trim() ?? "")).toBe(path.replace(/\s+/g, " "));
    expect(text).not.toContain("<img");
  });
  const taskWith = (name: string, fileCount: number, pathLength = 20) =>
    ({
      name,
      status: "completed",
      changedFiles: Array.from({ length: fileCount }, (_, index) => ({
        path: `${String(index).padStart(pathLength, "f")}.txt`,
        status: "added",
        additions: 1,
        deletions: 0,
        binary: false,
      })),
      costUsd: null,
      durationMs: 5,
    }) as unknown as TaskSummary;

  test("a task lists 100 of its changed files and counts the rest", () => {
    const text = jobSummary("report", [taskWith("big", 14_000)]);

    expect(text.split("\n").filter((line) => line.endsWith("| added | +1 −0 |"))).toHaveLength(100);
    expect(text).toContain("13,900 more; `summary.json` lists every file.");
  });

  test("it stays under GitHub's 1 MiB: past that the file lists are left out, the report kept", () => {
    const tasks = Array.from({ length: 100 }, (_, index) => taskWith(`t${index}`, 100, 200));
    const text = jobSummary("the report table", tasks);

    expect(Buffer.byteLength(text)).toBeLessThan(1024 * 1024);
    expect(text).toContain("the report table");
    expect(text).toContain("would pass GitHub's 1 MiB limit for a job summary");
    expect(text).not.toContain("| added |");
  });
});
