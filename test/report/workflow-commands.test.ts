import { describe, expect, test } from "vitest";
import { neutraliseCommands, workflowCommand } from "../../src/workflow-commands.js";
import { commandLines, runnerLines } from "../helpers/github-runner.js";

// Issue 14, finding 4: no line agent-run prints from untrusted text is read by the Actions runner
// as a workflow command. The runner splits its input at \r, \n and \r\n, reads a line as a command
// when it starts with `::` after .NET's TrimStart(), and reads the legacy `##[` anywhere.

const HOSTILE = [
  "::error::pwned",
  "  \t::add-mask::secret",
  "ok\n::error::pwned",
  "ok\r::error::pwned",
  "ok\r\n\n   ::set-output name=x::y",
  "\u0085::error::after NEL, which .NET trims and JavaScript does not",
  "\u00a0\u2003\u3000\ufeff::warning::after Unicode spaces",
  "text ##[error]legacy, anywhere in the line",
  "##[add-mask]x ##[set-env name=A]b",
];

describe("neutraliseCommands", () => {
  test.each(HOSTILE)("no runner line of %j is a command, and the text reads the same", (text) => {
    const shown = neutraliseCommands(text);

    expect(commandLines(shown)).toEqual([]);
    expect(shown.replaceAll("\u200b", "")).toBe(text);
  });

  test("every hostile line above is a command before neutralising (the check can fail)", () => {
    for (const text of HOSTILE) expect(commandLines(text)).not.toEqual([]);
  });

  test("leaves ordinary lines alone", () => {
    const text = "[t] step 1 bash: ls (exit 0, 3ms)\nC++ a::b and std::vector";
    expect(neutraliseCommands(text)).toBe(text);
  });
});

describe("workflowCommand", () => {
  test("escapes data and properties so nothing ends the line or adds a property", () => {
    const line = workflowCommand(
      "error",
      { file: "a:b,c.yaml", line: 3, title: "t: x\n::add-mask::y" },
      "50%\r\n::error::pwned",
    );

    expect(line).toBe(
      "::error file=a%3Ab%2Cc.yaml,line=3,title=t%3A x%0A%3A%3Aadd-mask%3A%3Ay::50%25%0D%0A::error::pwned",
    );
    expect(runnerLines(line)).toHaveLength(1);
  });

  test("breaks up a legacy ##[ in the message", () => {
    expect(workflowCommand("warning", {}, "see ##[error]x")).toBe(
      "::warning::see ##\u200b[error]x",
    );
  });
});
