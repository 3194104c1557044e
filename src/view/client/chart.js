// A small chart of a run: its tokens per step (bars) and its cost so far (a line), drawn as SVG.

import { el, svgEl } from "./dom.js";
import { formatCost, formatCount } from "./format.js";

const WIDTH = 640;
const HEIGHT = 120;
const PAD = 4;

/** The tokens and cost of a step, its subagents' steps included. */
function stepFigures(step) {
  let tokens = step.tokens;
  let costUsd = step.costUsd;
  for (const block of step.blocks) {
    const agent = block.kind === "call" ? block.call.subagent : null;
    if (agent === null) continue;
    for (const inner of agent.steps) {
      const figures = stepFigures(inner);
      tokens += figures.tokens;
      costUsd = costUsd === null || figures.costUsd === null ? null : costUsd + figures.costUsd;
    }
  }
  return { tokens, costUsd };
}

/** The chart for a run's top-level steps; null when it has none. */
export function runChart(steps) {
  if (steps.length === 0) return null;
  const figures = steps.map(stepFigures);
  const maxTokens = Math.max(1, ...figures.map((each) => each.tokens));
  let sum = 0;
  const cumulative = figures.map((each) => {
    sum += each.costUsd ?? 0;
    return sum;
  });
  const maxCost = Math.max(...cumulative);
  const slot = (WIDTH - 2 * PAD) / steps.length;
  const bars = figures.map((each, index) => {
    const height = Math.max(1, (each.tokens / maxTokens) * (HEIGHT - 2 * PAD));
    const label = `step ${steps[index].step}: ${formatCount(each.tokens)} tokens, ${formatCost(each.costUsd)}`;
    return svgEl(
      "rect",
      {
        class: "bar",
        x: (PAD + index * slot + slot * 0.15).toFixed(2),
        y: (HEIGHT - PAD - height).toFixed(2),
        width: Math.max(0.5, slot * 0.7).toFixed(2),
        height: height.toFixed(2),
      },
      [svgEl("title", { text: label })],
    );
  });
  const points = cumulative.map((cost, index) => {
    const x = PAD + index * slot + slot / 2;
    const y = HEIGHT - PAD - (maxCost === 0 ? 0 : (cost / maxCost) * (HEIGHT - 2 * PAD));
    return `${x.toFixed(2)},${y.toFixed(2)}`;
  });
  const description = `Tokens per step (bars, highest ${formatCount(maxTokens)}) and the cost so far (line, reaching ${formatCost(maxCost)}) over ${steps.length} steps.`;
  const svg = svgEl(
    "svg",
    {
      class: "chart",
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      role: "img",
      "aria-label": description,
      preserveAspectRatio: "none",
    },
    [
      svgEl("title", { text: description }),
      ...bars,
      svgEl("polyline", { class: "cost-line", points: points.join(" ") }),
    ],
  );
  const legend = `Bars: tokens per step, a subagent's counted in the step of its task call (highest ${formatCount(maxTokens)}). Line: the estimated cost so far (reaching ${formatCost(maxCost)}).`;
  return el("figure", { class: "chart-figure" }, [
    svg,
    el("figcaption", { class: "muted", text: legend }),
  ]);
}
