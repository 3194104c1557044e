import { describe, expect, test } from "vitest";
import { endOfObject, parseTextReply } from "../../src/model/text-protocol-parse.js";

const TOOLS = ["bash", "read_file", "write_file"];
const parse = (text: string, cutOff = false) => parseTextReply(text, TOOLS, cutOff);

describe("parseTextReply", () => {
  test("one call line is a call, with the text before it kept", () => {
    expect(parse('I will list the files.\ntool: bash({"command":"ls -la"})')).toEqual({
      kind: "call",
      kept: 'I will list the files.\ntool: bash({"command":"ls -la"})',
      name: "bash",
      input: { command: "ls -la" },
      laterCalls: 0,
    });
  });

  test("the call line is read in its trimmed form (indented, CRLF)", () => {
    const parsed = parse('   tool: read_file({"path":"a.txt"})  \r\n');
    expect(parsed).toMatchObject({ kind: "call", name: "read_file", input: { path: "a.txt" } });
  });

  test("JSON spanning several lines, with braces, quotes and tool: lines inside strings", () => {
    const text = [
      "tool: write_file({",
      '  "path": "x.js",',
      '  "content": "function f() { return \\"}\\"; }\\ntool: bash({})"',
      "})",
    ].join("\n");
    expect(parse(text)).toEqual({
      kind: "call",
      kept: text,
      name: "write_file",
      input: { path: "x.js", content: 'function f() { return "}"; }\ntool: bash({})' },
      laterCalls: 0,
    });
  });

  test("only the first call runs; later call lines are counted and dropped", () => {
    const parsed = parse(
      'tool: bash({"command":"ls"})\ntool: bash({"command":"pwd"})\nthen\ntool: read_file({"path":"a"})',
    );
    expect(parsed).toEqual({
      kind: "call",
      kept: 'tool: bash({"command":"ls"})',
      name: "bash",
      input: { command: "ls" },
      laterCalls: 2,
    });
  });

  test("an invented tool_result after the call is discarded", () => {
    const parsed = parse(
      'tool: bash({"command":"ls"})\ntool_result({"tool":"bash","content":"a.txt"})\nDone: a.txt exists.',
    );
    expect(parsed).toMatchObject({ kind: "call", kept: 'tool: bash({"command":"ls"})' });
  });

  test("an unknown tool name is malformed, with a did-you-mean and the tool list", () => {
    const parsed = parse('tool: read_fil({"path":"a"})');
    expect(parsed.kind).toBe("malformed");
    if (parsed.kind !== "malformed") return;
    expect(parsed.error).toContain("unknown tool read_fil; did you mean read_file?");
    expect(parsed.error).toContain("The tools you have are: bash, read_file, write_file");
  });

  test("a reply with no call line is the final answer", () => {
    expect(parse("All done: the tests pass.\nNo tool needed (tool calls are lines).")).toEqual({
      kind: "final",
    });
    expect(parse("")).toEqual({ kind: "final" });
  });

  test("cut off at the output limit in the middle of the call gets its own message", () => {
    const parsed = parse('tool: write_file({"path":"big.txt","content":"aaaa', true);
    expect(parsed.kind).toBe("malformed");
    if (parsed.kind !== "malformed") return;
    expect(parsed.error).toContain("cut off at the output token limit");
    expect(parsed.error).toContain("write_file");
  });

  test("the same unclosed JSON without a cut-off says it is never closed", () => {
    const parsed = parse('tool: bash({"command":"ls"');
    expect(parsed).toMatchObject({ kind: "malformed" });
    if (parsed.kind !== "malformed") return;
    expect(parsed.error).toContain("never closed");
    expect(parsed.error).not.toContain("cut off");
  });

  test.each([
    ["single quotes", "tool: bash({'command':'ls'})", "not valid JSON"],
    ["a trailing comma", 'tool: bash({"command":"ls",})', "not valid JSON"],
    ["an unquoted key", 'tool: bash({command:"ls"})', "not valid JSON"],
    ["no parentheses", 'tool: bash {"command":"ls"}', "no JSON object in parentheses"],
    ["a string argument", 'tool: bash("ls")', "no JSON object in parentheses"],
    ["no name", 'tool: ({"command":"ls"})', "no tool name"],
    ["text after the call", 'tool: bash({"command":"ls"}) and then', "must end with )"],
    ["no closing parenthesis", 'tool: bash({"command":"ls"}', "must end with )"],
  ])("invalid call (%s) is malformed, never repaired", (_name, text, message) => {
    const parsed = parse(text);
    expect(parsed.kind).toBe("malformed");
    if (parsed.kind !== "malformed") return;
    expect(parsed.error).toContain(message);
    expect(parsed.error).toContain("tool: TOOL_NAME({JSON_ARGS})");
  });

  test("a malformed call keeps the text up to its line and drops the rest", () => {
    const parsed = parse('Let me look.\ntool: bash({"command":ls})\ntool_result({"content":"x"})');
    expect(parsed).toMatchObject({
      kind: "malformed",
      kept: 'Let me look.\ntool: bash({"command":ls})',
    });
  });
});

describe("endOfObject", () => {
  test("counts braces outside strings only, escapes included", () => {
    const text = '{"a":"\\\\","b":"{\\"}","c":{"d":{}}} tail';
    expect(endOfObject(text, 0)).toBe(text.indexOf(" tail"));
  });

  test("is undefined when the text ends inside the object", () => {
    expect(endOfObject('{"a":"}', 0)).toBeUndefined();
  });
});
