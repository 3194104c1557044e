import { describe, expect, test } from "vitest";
import {
  createFinalOutput,
  MAX_OUTPUT_REPLY_CHARS,
  parseReplyJson,
  replyJsonText,
} from "../../src/run/structured-output.js";

const SCHEMA = {
  type: "object",
  properties: {
    label: { enum: ["bug", "feature", "question"] },
    confidence: { type: "number", minimum: 0, maximum: 1 },
  },
  required: ["label", "confidence"],
  additionalProperties: false,
};

describe("replyJsonText: what counts as the reply's JSON", () => {
  test.each([
    ['  {"a": 1}\n', '{"a": 1}'],
    ['Here it is:\n```json\n{"a": 1}\n```\n', '{"a": 1}'],
    ['```JSON\n{"a": 1}\n```', '{"a": 1}'],
    ['```\n{"a": 1}\n```', '{"a": 1}'],
    ['```json\n{"a": 1}\n```\nthen\n```json\n{"a": 2}\n```', '{"a": 2}'],
    ['```python\nx = {"a": 1}\n```\n```json\n{"a": 3}\n```', '{"a": 3}'],
    ['```python\n```json\n{"a": 1}\n```', undefined],
    ["It is a bug.", undefined],
    ['The answer: {"a": 1}', undefined],
    ['```json\n{"a": 1}', undefined],
  ])("%j → %j", (text, expected) => {
    expect(replyJsonText(text)).toBe(expected);
  });

  test("a reply of many unclosed fences is read in linear time", () => {
    const text = "```json\n".repeat(100_000);
    const startedAt = performance.now();

    expect(replyJsonText(text)).toBeUndefined();
    expect(performance.now() - startedAt).toBeLessThan(1_000);
  });
});

describe("parseReplyJson: hostile replies are problems, never throws", () => {
  test.each([
    ["", "it holds no JSON object (the whole reply, or a ```json block)"],
    ["{not json", expect.stringMatching(/^it is not valid JSON: /)],
    ["```json\n[1, 2]\n```", "its JSON is an array, not an object"],
    ["```json\nnull\n```", "its JSON is null, not an object"],
    ['```json\n"bug"\n```', "its JSON is string, not an object"],
    [`{"a":${"[".repeat(100_000)}${"]".repeat(100_000)}}`, "its JSON nests deeper than 64 levels"],
    [`{"a":"${"x".repeat(MAX_OUTPUT_REPLY_CHARS)}"}`, "it is longer than 1048576 characters"],
  ])("%#", (text, problem) => {
    expect(parseReplyJson(text)).toEqual({ ok: false, problem });
  });

  test("__proto__ stays a key of the object, not its prototype", () => {
    const parsed = parseReplyJson('{"__proto__": {"polluted": true}, "label": "bug"}');

    if (!parsed.ok) throw new Error(parsed.problem);
    expect(Object.keys(parsed.value)).toEqual(["__proto__", "label"]);
    expect(Object.getPrototypeOf(parsed.value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("createFinalOutput", () => {
  const output = createFinalOutput({ schema: SCHEMA, maxRetries: 2 });

  test("a valid reply's object, from the whole text or a fenced block", () => {
    expect([
      output.check('{"label": "bug", "confidence": 0.9}'),
      output.check('Done.\n```json\n{"label": "question", "confidence": 0}\n```'),
      output.maxRetries,
    ]).toEqual([
      { ok: true, value: { label: "bug", confidence: 0.9 } },
      { ok: true, value: { label: "question", confidence: 0 } },
      2,
    ]);
  });

  test("an invalid one: every problem, where and what, with the allowed values", () => {
    expect(output.check('{"label": "crash", "confidence": 2, "extra": true}')).toEqual({
      ok: false,
      problems:
        'it does not match output_schema: (the object): must NOT have additional properties ("extra"); /label: must be equal to one of the allowed values ("bug", "feature", "question"); /confidence: must be <= 1',
    });
  });

  test("a hostile reply's problems are listed to 10 and counted, each path clipped", () => {
    const wide = createFinalOutput({
      schema: { type: "object", additionalProperties: { type: "string" } },
      maxRetries: 0,
    });
    const keys = Array.from({ length: 1000 }, (_, index) => `"${"k".repeat(500)}${index}": 1`);

    const verdict = wide.check(`{${keys.join(",")}}`);

    if (verdict.ok) throw new Error("valid");
    expect(verdict.problems).toMatch(/; and 990 more problems$/);
    expect(verdict.problems.length).toBeLessThan(4_000);
  });

  test("a 2020-12 schema is checked as 2020-12", () => {
    const tuple = createFinalOutput({
      schema: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: {
          pair: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }] },
        },
      },
      maxRetries: 1,
    });

    expect([tuple.check('{"pair": ["a", 1]}').ok, tuple.check('{"pair": [1, "a"]}')]).toEqual([
      true,
      {
        ok: false,
        problems:
          "it does not match output_schema: /pair/0: must be string; /pair/1: must be number",
      },
    ]);
  });
});
