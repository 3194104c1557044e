// A batch's page: its totals, and the table of its tasks, sortable and filterable.

import { badge, el, passBadge, statusBadge } from "./dom.js";
import { formatCost, formatCount, formatDuration } from "./format.js";
import { runHref } from "./task-page.js";

/** A task's row: its runs summed (a task run once is that run). */
function taskRow(task, taskIndex) {
  const runs = task.runs;
  const sum = (pick) => runs.reduce((total, run) => total + pick(run), 0);
  const statuses = [...new Set(runs.map((run) => run.status))];
  const checks = runs.flatMap((run) => run.checks);
  const costs = runs.map((run) => run.costUsd);
  const plans = runs.map((run) => run.plan).filter((plan) => plan !== null);
  return {
    taskIndex,
    name: task.name,
    status: statuses.length === 1 ? statuses[0] : "mixed",
    overLimit: runs.map((run) => run.overLimit).find((limit) => limit !== null) ?? null,
    passed: task.passedRuns === runs.length,
    passRate: task.passedRuns / runs.length,
    checksPassed: checks.filter((check) => check.passed).length,
    checks: checks.length,
    plan: plans.length === 0 ? null : plans[plans.length - 1],
    steps: sum((run) => run.steps),
    tokens: sum((run) => run.tokens),
    costUsd: costs.includes(null) ? null : sum((run) => run.costUsd),
    durationMs: sum((run) => run.durationMs),
    trials: runs.length,
    passedRuns: task.passedRuns,
    isFlaky: task.isFlaky,
  };
}

/** The table's columns: the header, how a row sorts, and its cell. */
const COLUMNS = [
  { key: "name", label: "Task", sort: (row) => row.name },
  { key: "status", label: "Status", sort: (row) => row.status },
  { key: "passed", label: "Passed", sort: (row) => row.passRate },
  {
    key: "checks",
    label: "Checks",
    sort: (row) => (row.checks === 0 ? 2 : row.checksPassed / row.checks),
    isNumber: true,
  },
  {
    key: "plan",
    label: "Plan",
    sort: (row) => (row.plan === null ? -1 : row.plan.completed / Math.max(1, row.plan.total)),
    isNumber: true,
  },
  { key: "steps", label: "Steps", sort: (row) => row.steps, isNumber: true },
  { key: "tokens", label: "Tokens", sort: (row) => row.tokens, isNumber: true },
  { key: "cost", label: "Cost", sort: (row) => row.costUsd ?? -1, isNumber: true },
  { key: "duration", label: "Duration", sort: (row) => row.durationMs, isNumber: true },
  { key: "trials", label: "Trials", sort: (row) => row.trials, isNumber: true },
];

function cells(row, batchIndex) {
  return [
    el("th", { scope: "row" }, [
      el("a", { href: runHref(batchIndex, row.taskIndex, 0), class: "task-link", text: row.name }),
    ]),
    el("td", {}, [
      statusBadge(row.status, row.overLimit),
      row.overLimit === null || row.overLimit === row.status
        ? null
        : badge(`over ${row.overLimit}`, "warn"),
      row.isFlaky ? badge("flaky", "warn") : null,
    ]),
    el("td", {}, [
      row.trials > 1 ? `${row.passedRuns}/${row.trials} ` : null,
      passBadge(row.passed),
    ]),
    el("td", { class: "num", text: row.checks === 0 ? "-" : `${row.checksPassed}/${row.checks}` }),
    el("td", {
      class: "num",
      text: row.plan === null ? "-" : `${row.plan.completed}/${row.plan.total}`,
    }),
    el("td", { class: "num", text: formatCount(row.steps) }),
    el("td", { class: "num", text: formatCount(row.tokens) }),
    el("td", { class: "num", text: formatCost(row.costUsd) }),
    el("td", { class: "num", text: formatDuration(row.durationMs) }),
    el("td", {
      class: "num",
      text: row.trials > 1 ? `${row.trials} (${Math.round(row.passRate * 100)}% passed)` : "1",
    }),
  ];
}

/** The rows the filter keeps, in the order the sort asks for. */
function visibleRows(rows, state) {
  const query = state.query.trim().toLowerCase();
  const kept = rows.filter((row) => {
    if (query !== "" && !row.name.toLowerCase().includes(query)) return false;
    if (state.show === "passed") return row.passed;
    if (state.show === "failed") return !row.passed;
    if (state.show === "flaky") return row.isFlaky;
    if (state.show === "over-limit") return row.overLimit !== null;
    return true;
  });
  const column = COLUMNS.find((each) => each.key === state.sortKey) ?? COLUMNS[0];
  const direction = state.isDescending ? -1 : 1;
  return kept.sort((a, b) => {
    const [x, y] = [column.sort(a), column.sort(b)];
    const order = x < y ? -1 : x > y ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
    return order * direction;
  });
}

function totalsRow(totals) {
  return el("tr", {}, [
    el("th", { scope: "row", text: "Total" }),
    el("td", { text: `${totals.tasks} ${totals.tasks === 1 ? "task" : "tasks"}` }),
    el("td", { text: `${totals.passed}/${totals.tasks}` }),
    el("td", { class: "num", text: `${totals.checks - totals.failedChecks}/${totals.checks}` }),
    el("td", {}),
    el("td", { class: "num", text: formatCount(totals.steps) }),
    el("td", { class: "num", text: formatCount(totals.tokens) }),
    el("td", { class: "num", text: formatCost(totals.costUsd) }),
    el("td", { class: "num", text: formatDuration(totals.durationMs) }),
    el("td", {}),
  ]);
}

function header(state, onSort) {
  return el(
    "tr",
    {},
    COLUMNS.map((column) => {
      const isSorted = state.sortKey === column.key;
      const sort = isSorted ? (state.isDescending ? "descending" : "ascending") : "none";
      const arrow = isSorted ? (state.isDescending ? " ▼" : " ▲") : "";
      return el("th", { scope: "col", "aria-sort": sort, class: column.isNumber ? "num" : null }, [
        el(
          "button",
          {
            type: "button",
            class: "sort",
            "data-key": column.key,
            onclick: () => onSort(column.key),
          },
          [column.label, el("span", { "aria-hidden": "true", text: arrow })],
        ),
      ]);
    }),
  );
}

/** The batch's totals in words, with its flaky tasks and the tasks over a limit. */
function summaryLine(batch, rows) {
  const { totals } = batch;
  const flaky = totals.flakyTasks;
  const overLimit = rows.filter((row) => row.overLimit !== null).length;
  const rate = totals.tasks === 0 ? 0 : Math.round((totals.passed / totals.tasks) * 1000) / 10;
  // With trials: how many passed, and the mean pass@1 (the tasks' mean pass rate).
  const trials =
    totals.trials > totals.tasks
      ? ` · ${formatCount(totals.passedTrials)}/${formatCount(totals.trials)} trials passed, pass@1 ${Math.round(totals.passAt1 * 1000) / 10}%`
      : "";
  return el("p", { class: "totals" }, [
    `${totals.passed}/${totals.tasks} passed (${rate}%)${trials} · ${formatCount(totals.tokens)} tokens · ${formatCost(totals.costUsd)} · ${formatCount(totals.steps)} steps · ${formatDuration(totals.durationMs)} of run time · `,
    flaky > 0 ? badge(`${flaky} flaky`, "warn") : `${flaky} flaky`,
    " · ",
    overLimit > 0 ? badge(`${overLimit} over a limit`, "warn") : "0 over a limit",
  ]);
}

/** Filter controls, the table and its live count; `state` keeps the filter and sort between pages. */
export function batchPage(page, batchIndex, state) {
  const batch = page.batches[batchIndex];
  const rows = batch.tasks.map(taskRow);
  const body = el("tbody");
  const head = el("thead");
  const count = el("p", { class: "muted", role: "status", "aria-live": "polite" });
  const redraw = () => {
    const shown = visibleRows(rows, state);
    body.replaceChildren(...shown.map((row) => el("tr", {}, cells(row, batchIndex))));
    head.replaceChildren(header(state, onSort));
    count.textContent = `Showing ${shown.length} of ${rows.length} ${rows.length === 1 ? "task" : "tasks"}.`;
  };
  const onSort = (key) => {
    state.isDescending = state.sortKey === key ? !state.isDescending : false;
    state.sortKey = key;
    redraw();
    head.querySelector(`button[data-key="${key}"]`)?.focus();
  };
  const search = el("input", {
    type: "search",
    id: "filter",
    value: state.query,
    oninput: (event) => {
      state.query = event.target.value;
      redraw();
    },
  });
  const options = [
    ["all", "all tasks"],
    ["passed", "passed"],
    ["failed", "failed"],
    ["flaky", "flaky"],
    ["over-limit", "over a limit"],
  ];
  const select = el(
    "select",
    {
      id: "show",
      onchange: (event) => {
        state.show = event.target.value;
        redraw();
      },
    },
    options.map(([value, label]) =>
      el("option", { value, selected: state.show === value, text: label }),
    ),
  );
  redraw();
  return [
    el("h1", { tabindex: "-1", text: batch.label }),
    summaryLine(batch, rows),
    ...batch.warnings.map((warning) => el("p", { class: "note", text: `Warning: ${warning}` })),
    el("div", { class: "filters" }, [
      el("label", { for: "filter", text: "Filter by name " }),
      search,
      el("label", { for: "show", text: " Show " }),
      select,
    ]),
    count,
    el("table", { class: "tasks" }, [
      el("caption", { text: "Tasks (select a column's heading to sort)" }),
      head,
      body,
      el("tfoot", {}, [totalsRow(batch.totals)]),
    ]),
  ];
}
