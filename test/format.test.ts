import { describe, expect, it, test } from "vitest";
import { formatBytes, formatCostCeiling, formatCount } from "../src/format.js";

describe("formatCount", () => {
  it("writes numbers as toLocaleString('en-US') does", () => {
    const values = [
      0,
      7,
      999,
      1_000,
      12_345,
      699,
      1_000_000,
      441_357,
      123_456_789_012,
      -5,
      -12_345,
      0.5,
      1.25,
      1_234.5678,
      999.9996,
      -0.0001,
      2 ** 53,
      1e21,
      -0,
      Number.NaN,
      Number.POSITIVE_INFINITY,
    ];
    for (const value of values) {
      expect(formatCount(value), String(value)).toBe(value.toLocaleString("en-US"));
    }
  });
});

describe("formatCostCeiling", () => {
  it("rounds up to the shown precision, never down, and ignores float noise", () => {
    expect([4.72001, 4.7, 0.00001, 0.12345, 0, 1, 9.999].map(formatCostCeiling)).toEqual([
      "$4.73",
      "$4.70",
      "$0.0001",
      "$0.1235",
      "$0.0000",
      "$1.00",
      "$10.00",
    ]);
  });
});

describe("formatBytes", () => {
  test("shows sizes in binary units", () => {
    expect([1024 ** 3, 64 * 1024 ** 2, 1.5 * 1024 ** 3, 512 * 1024, 100].map(formatBytes)).toEqual([
      "1 GiB",
      "64 MiB",
      "1.5 GiB",
      "512 KiB",
      "100 bytes",
    ]);
  });
});
