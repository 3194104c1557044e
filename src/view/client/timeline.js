// A run's timeline: each step's reply (text, reasoning, tool calls with their results), what
// happened around it (retries, context trims, limits, the plan), and subagents nested under the
// `task` call that started them.

import { badge, el, longText } from "./dom.js";
import { formatCost, formatCount, formatDuration } from "./format.js";

/** The line under a step's heading: how long it took, its tokens and its estimated cost. */
function stepMeta(step) {
  const parts = [
    step.durationMs === null ? null : `model ${formatDuration(step.durationMs)}`,
    step.toolsMs > 0 ? `tools ${formatDuration(step.toolsMs)}` : null,
    `${formatCount(step.tokens)} tokens (${formatCount(step.usage.input)} in, ${formatCount(step.usage.output)} out, ${formatCount(step.usage.cacheRead)} cache read, ${formatCount(step.usage.cacheWrite)} cache write)`,
    `est. ${formatCost(step.costUsd)}`,
  ];
  return parts.filter((part) => part !== null).join(" · ");
}

/** One event around a step, as a line of text. */
function eventLine(event) {
  switch (event.kind) {
    case "retry":
      return el("p", { class: "event warn" }, [
        badge("retry", "warn"),
        ` attempt ${event.attempt} of ${event.maxRetries}, after ${formatDuration(event.delayMs)}${event.status === null ? "" : ` (HTTP ${event.status})`}: ${event.message.text}`,
      ]);
    case "api_error":
      return el("p", { class: "event bad" }, [
        badge("API error", "bad"),
        ` ${event.status === null ? "" : `(HTTP ${event.status}) `}${event.message.text}`,
      ]);
    case "trim":
      return el("p", { class: "event" }, [
        badge("context trimmed", "info"),
        ` ${event.removed === null ? "old" : formatCount(event.removed)} tool results removed from what is sent (about ${formatCount(event.preTokens)}${event.postTokens === null ? "" : ` → ${formatCount(event.postTokens)}`} tokens)`,
      ]);
    case "limit":
      return el("p", { class: "event warn" }, [
        badge("limit reached", "warn"),
        ` ${event.limit}: ${formatCount(event.used)} of ${formatCount(event.max)}`,
      ]);
    case "plan":
      return planEvent(event);
    case "notice":
      return el("div", { class: "event" }, [
        badge("runner", "info"),
        longText(event.text, "notice"),
      ]);
    default:
      return el("p", { class: "event", text: `(an event of kind ${String(event.kind)})` });
  }
}

const PLAN_MARKS = { completed: "[x]", in_progress: "[~]", pending: "[ ]" };

function planEvent(event) {
  const items = event.items.map((item) =>
    el("li", { class: `plan-${item.status}` }, [
      `${PLAN_MARKS[item.status] ?? "[?]"} ${item.content.text} `,
      el("span", { class: "muted", text: `(${item.status.replace("_", " ")})` }),
    ]),
  );
  return el("div", { class: "event plan" }, [
    badge("plan", "info"),
    ` ${event.completed} of ${event.total} done`,
    el("progress", {
      max: String(Math.max(1, event.total)),
      value: String(event.completed),
      "aria-label": "plan progress",
    }),
    el("ul", {}, items),
  ]);
}

/** A tool call: its input, its result, and the subagent it started. */
function callView(call, context) {
  const result = call.result;
  const head = el("p", { class: "call-head" }, [
    el("span", { class: "tool", text: call.name }),
    result === null ? badge("no result", "warn") : null,
    result?.isError ? badge("error", "bad") : null,
    ...(result?.notes ?? []).map((note) => badge(note, "warn")),
    result?.exitCode === null || result === null ? null : ` exit ${result.exitCode}`,
    result?.durationMs === null || result === null
      ? null
      : ` · ${formatDuration(result.durationMs)}`,
  ]);
  return el("div", { class: "call" }, [
    head,
    longText(call.input, `${call.name} input`),
    call.subagent === null ? null : subagentView(call.subagent, context),
    result === null
      ? null
      : longText(result.output, `${call.name} output`, {
          tone: result.isError ? "error" : undefined,
        }),
  ]);
}

function subagentView(agent, context) {
  const end = agent.end;
  const summary = [
    `Subagent: ${agent.description}`,
    ` — ${agent.steps.length} steps`,
    end === null
      ? " (no end recorded)"
      : `, ${end.status}, ${formatCount(end.tokens)} tokens, ${formatCost(end.costUsd)}`,
  ].join("");
  const details = el("details", { class: "subagent", open: agent.steps.length <= 10 }, [
    el("summary", { text: summary }),
    ...agent.steps.map((step) => stepView(step, null, context)),
    ...trailingView(agent),
  ]);
  return details;
}

/** The replay's first divergence: the recorded and the replayed result side by side. */
function divergenceView(first) {
  const where =
    first.subagent === null
      ? ""
      : ` (in the subagent of call ${first.subagent.toolUseId}, at its step ${first.subagent.step})`;
  return el("div", { class: "divergence", role: "note" }, [
    el("p", {}, [
      badge("diverged", "bad"),
      ` The replay's ${first.toolName} result differs from the recording here${where}.`,
    ]),
    el("div", { class: "side-by-side" }, [
      el("div", {}, [
        el("h4", { text: "Recorded" }),
        longText(first.recorded, "recorded result", { isOpen: true }),
      ]),
      el("div", {}, [
        el("h4", { text: "Replayed" }),
        longText(first.replayed, "replayed result", { isOpen: true }),
      ]),
    ]),
    longText(first.diff, "first difference"),
  ]);
}

/**
 * One step. `index` is the top-level step's position (its element id), null inside a subagent.
 * `context.divergence` marks the top-level steps a replay diverged at.
 */
export function stepView(step, index, context) {
  const divergence = index === null ? null : context.divergence;
  const isDivergent = divergence?.divergentSteps.includes(step.step) === true;
  const first = divergence?.first?.step === step.step ? divergence.first : null;
  const heading = el(index === null ? "h5" : "h3", { class: "step-title", tabindex: "-1" }, [
    `Step ${step.step}`,
    isDivergent ? badge("diverged", "bad") : null,
  ]);
  return el(
    "section",
    {
      class: `step${isDivergent ? " divergent" : ""}`,
      id: index === null ? null : `step-${index}`,
    },
    [
      heading,
      el("p", { class: "muted", text: stepMeta(step) }),
      first === null ? null : divergenceView(first),
      ...step.before.map(eventLine),
      ...step.blocks.map((block) => blockView(block, context)),
      ...step.after.map(eventLine),
    ],
  );
}

function blockView(block, context) {
  switch (block.kind) {
    case "text":
      return el("div", { class: "text" }, [longText(block.text, "the model's text")]);
    case "reasoning":
      return el("details", { class: "reasoning" }, [
        el("summary", { text: `Reasoning (${formatCount(block.text.text.length)} characters)` }),
        longText(block.text, "reasoning"),
      ]);
    case "hidden_reasoning":
      return el("p", { class: "muted", text: "Reasoning the API sent encrypted (not shown)." });
    case "call":
      return callView(block.call, context);
    default:
      return el("p", { class: "muted", text: `A block of type ${String(block.type)}.` });
  }
}

/** The events that had no step (an API error before any reply). */
export function trailingView(agent) {
  return agent.trailing.map(eventLine);
}
