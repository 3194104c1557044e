import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildReport, type Report } from "../../src/report/aggregate.js";
import { loadRunSummaries } from "../../src/report/load-runs.js";
import { formatReportMarkdown } from "../../src/report/markdown.js";
import { writeMixedShards } from "../helpers/report-fixtures.js";

let tmp: string;
let report: Report;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "agent-run-markdown-"));
  report = buildReport(await loadRunSummaries(await writeMixedShards(tmp)));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe("formatReportMarkdown", () => {
  test("a padded table, the totals row, the verdict line and the failures", () => {
    expect(formatReportMarkdown(report)).toMatchInlineSnapshot(`
      "| task  | status    | passed | checks | steps | tokens |    cost | files | duration |
      | ----- | --------- | ------ | -----: | ----: | -----: | ------: | ----: | -------: |
      | alpha | completed | yes    |    1/1 |     3 |  1,500 | $0.0100 |     1 |     2.5s |
      | beta  | max_steps | no     |    0/1 |     8 |  4,000 |       - |     0 |    1m01s |
      | gamma | completed | no     |    0/2 |     5 |  1,500 | $0.0234 |     1 |     2.5s |
      | total |           | 1/3    |    1/4 |    16 |  7,000 | $0.0334 |     2 |    1m06s |

      1/3 passed (33.3%), 7,000 tokens, $0.0334 (1 task without a price, not counted)

      Failures:
      - beta: status max_steps — stopped after 8 steps (limits.max_steps)
      - beta: tests pass — \\\`npm test\\\` exited with 1
      - gamma: has &lt;export&gt; &amp; "quotes" — src/app.js does not contain "export" &amp; &lt;main&gt;
      - gamma: no debug — found console.log"
    `);
  });

  test("every table line has the same width, so it reads as aligned plain text", () => {
    const table = formatReportMarkdown(report).split("\n\n")[0] ?? "";
    const widths = new Set(table.split("\n").map((line) => line.length));

    expect(table.split("\n")).toHaveLength(2 + 3 + 1);
    expect(widths.size).toBe(1);
  });
});

describe("formatReportMarkdown(report, 'plain'): the log's table, read as text", () => {
  test("names and messages carry no Markdown escapes; only `|` is escaped, to keep the columns", () => {
    const plain = formatReportMarkdown(report, "plain");

    expect(plain.split("\n\n").slice(1).join("\n\n")).toMatchInlineSnapshot(`
      "1/3 passed (33.3%), 7,000 tokens, $0.0334 (1 task without a price, not counted)

      Failures:
      - beta: status max_steps — stopped after 8 steps (limits.max_steps)
      - beta: tests pass — \`npm test\` exited with 1
      - gamma: has <export> & "quotes" — src/app.js does not contain "export" & <main>
      - gamma: no debug — found console.log"
    `);
    expect(plain).not.toMatch(/\\[`:_*<>&]|&(amp|lt|gt);/);
  });
});
