import { describe, expect, test } from "vitest";
import {
  JSON_POINTER_PATTERN,
  jsonEqual,
  jsonPointerHint,
  resolveJsonPointer,
} from "../../src/checks/json-pointer.js";

const DOC = JSON.parse(
  '{"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\\\j": 5, "k\\"l": 6, " ": 7, "m~n": 8, "__proto__": {"x": 9}}',
) as Record<string, unknown>;

describe("JSON Pointers (RFC 6901)", () => {
  // RFC 6901, section 5: each pointer and the value it evaluates to.
  test.each([
    ["", DOC],
    ["/foo", ["bar", "baz"]],
    ["/foo/0", "bar"],
    ["/", 0],
    ["/a~1b", 1],
    ["/c%d", 2],
    ["/e^f", 3],
    ["/g|h", 4],
    ["/i\\j", 5],
    ['/k"l', 6],
    ["/ ", 7],
    ["/m~0n", 8],
    ["/__proto__/x", 9],
  ])("%j resolves as RFC 6901 says", (pointer, value) => {
    expect(resolveJsonPointer(DOC, pointer)).toEqual({ found: true, value });
  });

  test.each([
    ["/nope", "/nope"],
    ["/foo/2", "/foo/2"],
    ["/foo/-", "/foo/-"],
    ["/foo/01", "/foo/01"],
    ["/foo/0/length", "/foo/0/length"],
    ["/constructor", "/constructor"],
    ["/__proto__/toString", "/__proto__/toString"],
    ["/foo/0/x/y", "/foo/0/x"],
  ])("%j finds nothing; the missing part is %j", (pointer, missing) => {
    expect(resolveJsonPointer(DOC, pointer)).toEqual({ found: false, missing });
  });

  test("malformed pointers get a hint; the pattern agrees with the parser", () => {
    const pointers = ["", "/a", "/a~0~1", "a", "/a~", "/a~2", "#/a"];
    const pattern = new RegExp(JSON_POINTER_PATTERN);

    expect(pointers.map(jsonPointerHint)).toEqual([
      undefined,
      undefined,
      undefined,
      'start it with "/"',
      'a "~" must be followed by 0 or 1',
      'a "~" must be followed by 0 or 1',
      'start it with "/"',
    ]);
    expect(pointers.map((pointer) => pattern.test(pointer))).toEqual(
      pointers.map((pointer) => jsonPointerHint(pointer) === undefined),
    );
  });

  test("jsonEqual compares as JSON: members in any order, no type coercion", () => {
    expect([
      jsonEqual({ a: [1, { b: null }], c: "x" }, { c: "x", a: [1, { b: null }] }),
      jsonEqual(1, 1.0),
      jsonEqual("1", 1),
      jsonEqual([1], { 0: 1 }),
      jsonEqual({ a: 1 }, { a: 1, b: 2 }),
      jsonEqual({ a: undefined }, { b: undefined }),
      jsonEqual(null, {}),
    ]).toEqual([true, true, false, false, false, false, false]);
  });
});
