import { describe, expect, test } from "vitest";
import {
  compileInputSchema,
  compileOutputSchema,
  describeInputProblems,
} from "../../src/tools/input-schema.js";

function problemOf(schema: Record<string, unknown>): string | undefined {
  const compiled = compileInputSchema(schema);
  return compiled.ok ? undefined : compiled.message;
}

describe("compileInputSchema", () => {
  test("an unknown keyword's place: the keys down to it, past property names and data that spell it", () => {
    const schema = {
      type: "object",
      properties: { minLenght: { type: "string" }, label: { type: "string", minLenght: 3 } },
      default: { minLenght: 1 },
      items: [{ type: "string" }, { enum: ["minLenght"], minLenght: 2 }],
    };
    const compiled = compileInputSchema(schema);

    expect(compiled).toEqual({
      ok: false,
      message: 'unknown keyword "minLenght"; did you mean "minLength"?',
      path: ["properties", "label", "minLenght"],
    });
    expect(compileInputSchema({ type: "object", zzzzz: 1 })).toEqual({
      ok: false,
      message: 'unknown keyword "zzzzz"',
      path: ["zzzzz"],
    });
  });

  test("compiles a draft-07 schema, the same object once", () => {
    const schema = { type: "object", properties: { id: { type: "string" } }, required: ["id"] };

    const first = compileInputSchema(schema);
    const second = compileInputSchema(schema);

    expect(first.ok && second.ok && first.validate === second.validate).toBe(true);
    expect(first.ok && first.validate({ id: "a" })).toBe(true);
  });

  test("refuses what strict mode refuses, in Ajv's words; a misspelt keyword with what it may mean", () => {
    expect(
      [
        { type: "object", propertes: {} },
        { type: "objet" },
        { type: "object", required: "id" },
        { type: "object", properties: { id: { pattern: "(" } } },
        { type: "object", properties: { id: { pattern: "^(?=T-)\\w+$" } } },
        { type: "object", properties: { id: { $ref: "https://example.com/schema" } } },
      ].map(problemOf),
    ).toEqual([
      'unknown keyword "propertes"; did you mean "properties"?',
      "schema is invalid: data/type must be equal to one of the allowed values, data/type must be array, data/type must match a schema in anyOf",
      "schema is invalid: data/required must be array",
      "error parsing regexp: missing closing ): `(`",
      "error parsing regexp: invalid or unsupported Perl syntax: `(?=`",
      "can't resolve reference https://example.com/schema from id #",
    ]);
  });

  test("refuses numbers JSON cannot carry and schemas nested past 64 levels", () => {
    let deep: Record<string, unknown> = { type: "string" };
    for (let level = 0; level < 40; level += 1) deep = { type: "object", properties: { a: deep } };

    expect([
      problemOf({ type: "object", properties: { n: { maximum: Number.POSITIVE_INFINITY } } }),
      problemOf(deep),
    ]).toEqual(["it holds Infinity, which JSON cannot carry", "it nests deeper than 64 levels"]);
  });

  test("two schemas may share an $id, and `format` is not checked", () => {
    const a = compileInputSchema({ $id: "ticket", type: "object" });
    const b = compileInputSchema({
      $id: "ticket",
      type: "object",
      properties: { at: { type: "string", format: "date-time" } },
    });

    expect([a.ok, b.ok && b.validate({ at: "not a date" })]).toEqual([true, true]);
  });

  test("leaves the input as it is: no defaults, no coercion", () => {
    const compiled = compileInputSchema({
      type: "object",
      properties: { n: { type: "number", default: 1 } },
    });
    const input = { other: "1" };

    expect(compiled.ok && compiled.validate(input)).toBe(true);
    expect(input).toEqual({ other: "1" });
  });
});

describe("describeInputProblems", () => {
  test("says where and what, in the tool's name", () => {
    const compiled = compileInputSchema({
      type: "object",
      properties: { id: { type: "string" } },
      required: ["id"],
    });
    if (!compiled.ok) throw new Error(compiled.message);

    compiled.validate({ id: 1 });

    expect(describeInputProblems("lookup", compiled.validate.errors ?? [])).toBe(
      "lookup: input/id must be string; re-send the call with input that fits the tool's input_schema.",
    );
  });
});

describe("the draft a schema names", () => {
  test("draft-07 without $schema or naming it; 2020-12 when it names 2020-12; nothing else", () => {
    const tuple = { type: "object", properties: { t: { prefixItems: [{ type: "string" }] } } };
    const draft07 = "http://json-schema.org/draft-07/schema#";
    const draft2020 = "https://json-schema.org/draft/2020-12/schema";

    expect([
      problemOf({ type: "object" }),
      problemOf({ $schema: draft07, type: "object" }),
      problemOf({ $schema: draft2020, ...tuple }),
      problemOf(tuple),
      problemOf({ $schema: "http://json-schema.org/draft-04/schema#", type: "object" }),
    ]).toEqual([
      undefined,
      undefined,
      undefined,
      'unknown keyword "prefixItems"; it is a 2020-12 keyword: add $schema: https://json-schema.org/draft/2020-12/schema',
      '$schema "http://json-schema.org/draft-04/schema#" is not a draft agent-run checks; name draft-07 (http://json-schema.org/draft-07/schema#) or 2020-12 (https://json-schema.org/draft/2020-12/schema), or leave $schema out for draft-07',
    ]);
  });

  test("an output schema is checked in full; a tool's input to its first problem", () => {
    const schema = { type: "object", required: ["a", "b"] };
    const output = compileOutputSchema(schema);
    const input = compileInputSchema(schema);
    if (!output.ok || !input.ok) throw new Error("does not compile");

    input.validate({});

    expect(output.problemsOf({})).toEqual([
      "(the object): must have required property 'a'",
      "(the object): must have required property 'b'",
    ]);
    expect(input.validate.errors).toHaveLength(1);
  });
});

describe("uniqueItems", () => {
  test("is checked in linear time, equal as JSON (numbers by value, members in any order)", () => {
    const schema = { type: "object", properties: { tags: { type: "array", uniqueItems: true } } };
    const output = compileOutputSchema(schema);
    const input = compileInputSchema(schema);
    if (!output.ok || !input.ok) throw new Error("does not compile");
    const many = Array.from({ length: 100_000 }, (_, index) => ({ id: index, at: [index] }));
    const startedAt = performance.now();

    expect([
      output.problemsOf({ tags: many }),
      output.problemsOf({ tags: [{ a: 1, b: [2] }, "x", { b: [2.0], a: 1 }] }),
      output.problemsOf({ tags: [1, "1", [1], { 1: 1 }] }),
      input.validate({ tags: ["a", "a"] }),
    ]).toEqual([
      [],
      ["/tags: must NOT have duplicate items (items ## 0 and 2 are identical)"],
      [],
      false,
    ]);
    expect(performance.now() - startedAt).toBeLessThan(2_000);
  });
});
