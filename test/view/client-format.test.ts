import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";
import { formatCost, formatCount, formatDuration } from "../../src/format.js";

/** The viewer's own formatters (the page cannot import src/format.ts), loaded as the module they are. */
type ClientFormat = {
  formatDuration: (ms: number) => string;
  formatCost: (usd: number | null) => string;
  formatCount: (value: number) => string;
  formatDelta: (value: number | null, format: (value: number) => string) => string;
};
const client = (await import(
  pathToFileURL(resolve("src/view/client/format.js")).href
)) as ClientFormat;

describe("the viewer's formatters", () => {
  test("write durations, costs and counts as agent-run's tables do", () => {
    const durations = [0, 0.4, 999, 1_000, 1_500, 59_999, 60_000, 125_000, 3_600_000, 7_265_432];
    const costs = [null, 0, 0.00001, 0.0123, 0.99999, 1, 12.345];
    const counts = [0, -0, 7, 999, 1_000, 12_345, -1_234_567, 0.1234, 1e21, Number.NaN];

    expect(durations.map(client.formatDuration)).toEqual(durations.map(formatDuration));
    expect(costs.map(client.formatCost)).toEqual(costs.map(formatCost));
    expect(counts.map(client.formatCount)).toEqual(counts.map(formatCount));
  });

  test("a delta has its sign, nothing when unknown", () => {
    expect([3, -3, 0, null].map((value) => client.formatDelta(value, client.formatCount))).toEqual([
      "+3",
      "-3",
      "±0",
      "",
    ]);
  });
});
