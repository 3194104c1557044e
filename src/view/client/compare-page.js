// Two batches compared as `report --compare` compares them: the mean pass rate's change with its
// interval, how the batches differ, each task's verdict, and the per-trial deltas.

import { badge, el } from "./dom.js";
import { formatCost, formatCount, formatDelta } from "./format.js";
import { runHref } from "./task-page.js";

/** Each verdict's words and tone, in the order the lists show them. */
const VERDICTS = {
  regressed: ["regressed", "bad"],
  improved: ["improved", "good"],
  flaky: ["flaky", "warn"],
  pass_to_fail: ["pass → fail", "bad"],
  fail_to_pass: ["fail → pass", "good"],
  new: ["new", "info"],
  missing: ["missing", "warn"],
  unchanged: ["unchanged", "info"],
};

function sideCell(page, batchIndex, name, side) {
  if (side === null) return el("td", { class: "muted", text: "not in this batch" });
  const taskIndex = page.batches[batchIndex].tasks.findIndex((task) => task.name === name);
  return el("td", {}, [
    el("a", { href: runHref(batchIndex, taskIndex, 0), text: side.status }),
    ` ${side.passedTrials}/${side.trials} passed`,
  ]);
}

/** `5 → 2 (-3)`, or the one value when it did not change (as `report --compare` writes it). */
function delta(before, after, value, format) {
  if (before === null || after === null || value === null) return "";
  if (value === 0) return format(after);
  return `${format(before)} → ${format(after)} (${formatDelta(value, format)})`;
}

/** Per-trial figures are shown whole, as the comparison's table shows them. */
function whole(value) {
  return formatCount(Math.round(value));
}

function pValue(p) {
  if (p === null) return "";
  if (p >= 1) return "1";
  return p < 0.001 ? "< 0.001" : p.toFixed(3);
}

function compareRow(page, row) {
  const [words, tone] = VERDICTS[row.verdict];
  const steps = row.stepsDelta === null ? null : Math.round(row.stepsDelta);
  const tokens = row.tokensDelta === null ? null : Math.round(row.tokensDelta);
  return el("tr", { class: row.verdict === "unchanged" ? null : "changed" }, [
    el("th", { scope: "row", text: row.name }),
    sideCell(page, 0, row.name, row.base),
    sideCell(page, 1, row.name, row.next),
    el("td", {}, [
      row.verdict === "unchanged"
        ? el("span", { class: "muted", text: words })
        : badge(words, tone),
    ]),
    el("td", { class: "num", text: pValue(row.pDrop) }),
    el("td", {
      class: "num",
      text: delta(row.base?.steps ?? null, row.next?.steps ?? null, steps, whole),
    }),
    el("td", {
      class: "num",
      text: delta(row.base?.tokens ?? null, row.next?.tokens ?? null, tokens, whole),
    }),
    el("td", {
      class: "num",
      text: delta(
        row.base?.costUsd ?? null,
        row.next?.costUsd ?? null,
        row.costDeltaUsd,
        formatCost,
      ),
    }),
  ]);
}

function percent(rate) {
  return `${(rate * 100).toFixed(1)}%`;
}

function points(delta) {
  const value = (delta * 100).toFixed(1);
  if (value === "0.0" || value === "-0.0") return "0.0";
  return delta > 0 ? `+${value}` : value;
}

/** What `report --compare --fail-on-regression` would decide, as its last line says it. */
function verdict(regression) {
  if (regression.isRegression) {
    return [badge("regression", "bad"), ` ${regression.reasons.join("; ")}`];
  }
  const regressed = regression.regressedTasks;
  if (regressed.length === 0) {
    return [
      badge("no significant regression", "good"),
      " the mean pass rate's interval reaches zero or above, and no task's drop is significant",
    ];
  }
  const tasks = regressed.length === 1 ? "1 task" : `${regressed.length} tasks`;
  return [
    badge("no batch regression", "warn"),
    ` the mean pass rate's interval reaches zero or above, but ${tasks} regressed significantly (${regressed.join(", ")}); none named with --regression-task`,
  ];
}

/** The comparison page: the headline, the differences, the changed tasks, and every task's row. */
export function comparePage(page) {
  const [base, next] = page.batches;
  const { rows, meanRate, differences, regression } = page.compare;
  const headline = `${base.totals.passed}/${base.totals.tasks} → ${next.totals.passed}/${next.totals.tasks} tasks passed every trial · mean pass rate ${percent(meanRate.base)} → ${percent(meanRate.next)} (${points(meanRate.delta)} points, ${Math.round(meanRate.level * 100)}% interval [${points(meanRate.low)}, ${points(meanRate.high)}])`;
  const changed = rows.filter((row) => row.verdict !== "unchanged");
  return [
    el("h1", { tabindex: "-1", text: "Comparison" }),
    el("p", { class: "totals", text: headline }),
    el("p", { class: "verdict" }, verdict(regression)),
    el("ul", { class: "batches" }, [
      el("li", {}, [el("a", { href: "#/b/0", text: base.label })]),
      el("li", {}, [el("a", { href: "#/b/1", text: next.label })]),
    ]),
    differences.length === 0
      ? el("p", {
          text: "The batches ran the same tasks, task files, models, limits, prices, tool protocol and agent-run version.",
        })
      : el("section", { "aria-label": "Differences between the batches" }, [
          el("h2", { text: "Differences between the batches" }),
          el(
            "ul",
            { class: "differences" },
            differences.map((difference) =>
              el("li", {}, [
                difference.refused ? badge("not comparable", "bad") : badge("differs", "info"),
                ` ${difference.title}: ${difference.change} (${difference.tasks.join(", ")})`,
              ]),
            ),
          ),
        ]),
    changed.length === 0
      ? el("p", { text: "No task changed." })
      : el(
          "ul",
          { class: "flips" },
          changed.map((row) =>
            el("li", {}, [
              badge(...VERDICTS[row.verdict]),
              ` ${row.name}: ${row.base === null ? "-" : `${row.base.passedTrials}/${row.base.trials}`} → ${row.next === null ? "-" : `${row.next.passedTrials}/${row.next.trials}`} passed`,
            ]),
          ),
        ),
    el("table", { class: "compare" }, [
      el("caption", { text: "Each task in both batches (steps, tokens and cost per trial)" }),
      el("thead", {}, [
        el(
          "tr",
          {},
          ["Task", "Base", "New", "Verdict", "p (drop)", "Steps", "Tokens", "Cost"].map((label) =>
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
