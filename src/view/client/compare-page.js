// Two batches compared: each task's status in both, the flips, and the deltas.

import { badge, el, passBadge } from "./dom.js";
import { formatCost, formatCount, formatDelta } from "./format.js";
import { runHref } from "./task-page.js";

const FLIPS = {
  pass_to_fail: ["pass → fail", "bad"],
  fail_to_pass: ["fail → pass", "good"],
};

function sideCell(page, batchIndex, name, side) {
  if (side === null) return el("td", { class: "muted", text: "not in this batch" });
  const taskIndex = page.batches[batchIndex].tasks.findIndex((task) => task.name === name);
  return el("td", {}, [
    el("a", { href: runHref(batchIndex, taskIndex, 0), text: side.status }),
    " ",
    passBadge(side.passed),
  ]);
}

/** `5 → 2 (-3)`, or the one value when it did not change (as `report --compare` writes it). */
function delta(before, after, value, format) {
  if (before === null || after === null) return "";
  if (value === 0) return format(after);
  return `${format(before)} → ${format(after)} (${formatDelta(value, format)})`;
}

function compareRow(page, row) {
  const flip = row.flip === null ? null : FLIPS[row.flip];
  const change =
    flip !== undefined && flip !== null
      ? badge(flip[0], flip[1])
      : row.base === null
        ? badge("new", "info")
        : row.next === null
          ? badge("missing", "warn")
          : el("span", { class: "muted", text: "same" });
  return el("tr", { class: row.flip === null ? null : "flipped" }, [
    el("th", { scope: "row", text: row.name }),
    sideCell(page, 0, row.name, row.base),
    sideCell(page, 1, row.name, row.next),
    el("td", {}, [change]),
    el("td", {
      class: "num",
      text: delta(row.base?.steps ?? null, row.next?.steps ?? null, row.stepsDelta, formatCount),
    }),
    el("td", {
      class: "num",
      text: delta(row.base?.tokens ?? null, row.next?.tokens ?? null, row.tokensDelta, formatCount),
    }),
    el("td", {
      class: "num",
      text:
        row.costDeltaUsd === null
          ? ""
          : delta(
              row.base?.costUsd ?? null,
              row.next?.costUsd ?? null,
              row.costDeltaUsd,
              formatCost,
            ),
    }),
  ]);
}

/** The comparison page: the headline, the flipped tasks, and every task's row. */
export function comparePage(page) {
  const [base, next] = page.batches;
  const rows = page.compare.rows;
  const count = (kind) => rows.filter((row) => row.flip === kind).length;
  const headline = `${base.totals.passed}/${base.totals.tasks} → ${next.totals.passed}/${next.totals.tasks} passed: ${count("pass_to_fail")} pass → fail, ${count("fail_to_pass")} fail → pass, ${rows.filter((row) => row.base === null).length} new, ${rows.filter((row) => row.next === null).length} missing`;
  const flipped = rows.filter((row) => row.flip !== null);
  return [
    el("h1", { tabindex: "-1", text: "Comparison" }),
    el("p", { class: "totals", text: headline }),
    el("ul", { class: "batches" }, [
      el("li", {}, [el("a", { href: "#/b/0", text: base.label })]),
      el("li", {}, [el("a", { href: "#/b/1", text: next.label })]),
    ]),
    flipped.length === 0
      ? el("p", { text: "No task flipped." })
      : el(
          "ul",
          { class: "flips" },
          flipped.map((row) =>
            el("li", {}, [
              badge(FLIPS[row.flip][0], FLIPS[row.flip][1]),
              ` ${row.name}: ${row.base.status} → ${row.next.status}`,
            ]),
          ),
        ),
    el("table", { class: "compare" }, [
      el("caption", { text: "Each task in both batches" }),
      el("thead", {}, [
        el(
          "tr",
          {},
          ["Task", "Base", "New", "Change", "Steps", "Tokens", "Cost"].map((label) =>
            el("th", { scope: "col", text: label }),
          ),
        ),
      ]),
      el(
        "tbody",
        {},
        rows.map((row) => compareRow(page, row)),
      ),
    ]),
  ];
}
