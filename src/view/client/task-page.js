// A task's page: its run (or one of its trials), the timeline, the changes and the checks.

import { changesView, checksView } from "./changes.js";
import { runChart } from "./chart.js";
import { badge, el, facts, longText, passBadge, statusBadge } from "./dom.js";
import { formatCost, formatCount, formatDuration } from "./format.js";
import { stepView, trailingView } from "./timeline.js";

/** The `#/…` address of a task's run. */
export function runHref(batchIndex, taskIndex, runIndex) {
  return `#/b/${batchIndex}/t/${taskIndex}${runIndex > 0 ? `/r/${runIndex}` : ""}`;
}

function trialsNav(task, batchIndex, taskIndex, runIndex) {
  if (task.runs.length < 2) return null;
  const links = task.runs.map((run, index) =>
    el("li", {}, [
      el(
        "a",
        {
          href: runHref(batchIndex, taskIndex, index),
          "aria-current": index === runIndex ? "page" : null,
        },
        [`trial ${run.trial ?? index + 1} `, passBadge(run.passed)],
      ),
    ]),
  );
  return el("nav", { class: "trials", "aria-label": "trials" }, [
    el("p", {}, [
      `${task.passedRuns} of ${task.runs.length} trials passed `,
      task.isFlaky ? badge("flaky", "warn") : null,
    ]),
    el("ul", {}, links),
  ]);
}

function runFacts(run) {
  return facts([
    [
      "status",
      el("span", {}, [statusBadge(run.status, run.overLimit), " ", passBadge(run.passed)]),
    ],
    ["over a limit", run.overLimit],
    ["model", run.model],
    ["task file", run.taskFile],
    ["run folder", run.folder],
    ["steps", formatCount(run.steps)],
    ["tokens", formatCount(run.tokens)],
    ["cost", formatCost(run.costUsd)],
    ["duration", formatDuration(run.durationMs)],
    ["plan", run.plan === null ? null : `${run.plan.completed} of ${run.plan.total} items done`],
    [
      "origin",
      run.origin === null
        ? null
        : `${run.origin.kind} of a recorded run (${run.origin.steps} steps recorded)`,
    ],
    ["error", run.error === null ? null : longText(run.error, "error")],
  ]);
}

/** A heading a section starts with, and a button (in the page's contents) that goes to it. */
function section(id, title, children) {
  const heading = el("h2", { id: `${id}-title`, tabindex: "-1", text: title });
  return el("section", { id, "aria-labelledby": `${id}-title` }, [heading, ...children]);
}

function contents(sections) {
  const buttons = sections.map((each) =>
    el("li", {}, [
      el("button", {
        type: "button",
        class: "link",
        text: each.querySelector("h2").textContent,
        onclick: () => {
          const heading = each.querySelector("h2");
          heading.scrollIntoView();
          heading.focus();
        },
      }),
    ]),
  );
  return el("nav", { class: "contents", "aria-label": "on this page" }, [el("ul", {}, buttons)]);
}

function replaySection(run) {
  const divergence = run.divergence;
  if (divergence === null) return null;
  const steps = divergence.divergentSteps;
  const text =
    steps.length === 0
      ? `No divergence: the ${formatCount(divergence.comparedSteps)} compared steps returned what the recording holds.`
      : steps.length === 1
        ? `The replay diverged at step ${steps[0]} of ${formatCount(divergence.comparedSteps)} compared (${divergence.first?.toolName ?? "a tool"}). That step is marked below.`
        : `The replay diverged at steps ${steps.join(", ")} of ${formatCount(divergence.comparedSteps)} compared; the first is at step ${divergence.first?.step ?? steps[0]} (${divergence.first?.toolName ?? "a tool"}). Those steps are marked below.`;
  return section("replay", "Replay", [
    el("p", {}, [
      steps.length === 0 ? badge("no divergence", "good") : badge("diverged", "bad"),
      ` ${text}`,
    ]),
  ]);
}

function timelineSection(run) {
  const timeline = run.timeline;
  const problem =
    run.timelineProblem === null
      ? null
      : el("p", { class: "note", text: `Not shown: ${run.timelineProblem}` });
  if (timeline === null) return section("timeline", "Timeline", [problem]);
  const context = { divergence: run.divergence };
  const steps = timeline.agent.steps;
  const notes = [
    timeline.isCut
      ? `Only the first ${formatCount(timeline.linesRead)} lines of the transcript are shown (the page's bound).`
      : null,
    timeline.linesLeftOut > 0
      ? `${formatCount(timeline.linesLeftOut)} lines of subagents that are unknown or nested too deep are left out.`
      : null,
  ].filter((note) => note !== null);
  return section("timeline", "Timeline", [
    problem,
    ...notes.map((note) => el("p", { class: "note", text: note })),
    longText(timeline.prompt, "prompt"),
    el("p", {
      class: "muted",
      text: `${steps.length} steps of the top-level agent · tools: ${timeline.tools.join(", ")} · keys j and k go to the next and previous step`,
    }),
    runChart(steps),
    ...steps.map((step, index) => stepView(step, index, context)),
    ...trailingView(timeline.agent),
    timeline.finalText === null ? null : el("h3", { text: "Final answer" }),
    timeline.finalText === null ? null : longText(timeline.finalText, "final answer"),
    ...timeline.errors.map((error) => longText(error, "error", { tone: "error" })),
  ]);
}

/** The page of one run of a task. */
export function taskPage(page, batchIndex, taskIndex, runIndex) {
  const batch = page.batches[batchIndex];
  const task = batch.tasks[taskIndex];
  const run = task.runs[runIndex];
  const sections = [
    replaySection(run),
    timelineSection(run),
    section("changes", "Changes", changesView(run)),
    section("checks", "Checks", checksView(run)),
  ].filter((each) => each !== null);
  return [
    el("nav", { "aria-label": "breadcrumb" }, [
      el("a", { href: `#/b/${batchIndex}`, text: `← All tasks of ${batch.label}` }),
    ]),
    el("h1", { tabindex: "-1", text: task.name }),
    trialsNav(task, batchIndex, taskIndex, runIndex),
    runFacts(run),
    contents(sections),
    ...sections,
  ];
}
