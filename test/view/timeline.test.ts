import { describe, expect, test } from "vitest";
import { DEFAULT_PRICES } from "../../src/model/pricing.js";
import type { TranscriptLine } from "../../src/transcript/line-schemas.js";
import { buildAgents } from "../../src/view/timeline.js";
import type { ViewAgent } from "../../src/view/view-data.js";

// Lines as the reader returns them, only the fields the timeline reads (cast: the reader's
// schemas are tested on their own).

const line = (fields: Record<string, unknown>) => fields as unknown as TranscriptLine;

function reply(step: number, parent: string | null, calls: string[], text = "") {
  const content = [
    ...(text === "" ? [] : [{ type: "text", text }]),
    ...calls.map((id) => ({
      type: "tool_use",
      id,
      name: id.startsWith("task") ? "task" : "bash",
      input: { command: "ls" },
    })),
  ];
  return line({
    type: "assistant",
    step,
    parent_tool_use_id: parent,
    duration_ms: 100,
    message: {
      content,
      stop_reason: "tool_use",
      usage: { input_tokens: 1_000_000, output_tokens: 0, cache_creation_input_tokens: null },
    },
  });
}

function result(
  step: number,
  parent: string | null,
  id: string,
  extra: Record<string, unknown> = {},
) {
  return line({
    type: "user",
    step,
    parent_tool_use_id: parent,
    tool_name: "bash",
    duration_ms: 5,
    message: { content: [{ type: "tool_result", tool_use_id: id, content: `out of ${id}` }] },
    ...extra,
  });
}

const started = (id: string, parent: string | null) =>
  line({
    type: "system",
    subtype: "task_started",
    tool_use_id: id,
    parent_tool_use_id: parent,
    description: `agent ${id}`,
    step: 1,
  });

const context = {
  clip: (text: string) => ({ text, cut: 0 }),
  prices: DEFAULT_PRICES,
  priced: { provider: "anthropic", model: "claude-sonnet-5-5" },
  maxSubagentDepth: 3,
};

/** How deep the subagents nest, following each step's first call. */
function depthOf(agent: ViewAgent): number {
  const call = agent.steps[0]?.blocks.find((block) => block.kind === "call");
  const inner = call?.kind === "call" ? call.call.subagent : null;
  return inner === null || inner === undefined ? 0 : 1 + depthOf(inner);
}

describe("buildAgents", () => {
  test("each step holds its reply, its results, and what happened before and after it", () => {
    const { agent, linesLeftOut } = buildAgents(
      [
        line({
          type: "system",
          subtype: "api_retry",
          attempt: 1,
          max_retries: 4,
          retry_delay_ms: 500,
          error_status: 529,
          error: "overloaded",
          error_message: "Overloaded",
          step: 1,
        }),
        line({
          type: "system",
          subtype: "compact_boundary",
          compact_metadata: { trigger: "auto", pre_tokens: 300, post_tokens: 200 },
          removed_tool_results: 2,
          step: 1,
        }),
        reply(1, null, ["a", "b"], "Listing."),
        result(1, null, "a", { exit_code: 0 }),
        line({
          type: "plan",
          step: 1,
          parent_tool_use_id: null,
          items: [{ content: "do it", status: "in_progress" }],
          completed: 0,
          total: 1,
        }),
        line({ type: "limit_reached", limit: "max_steps", used: 1, max: 1, step: 1 }),
        result(1, null, "b", { not_run: true, recorded_output: "the whole output" }),
        result(1, null, "unknown-call"),
      ],
      context,
    );

    expect(linesLeftOut).toBe(1);
    const [step] = agent.steps;
    expect(step?.before.map((event) => event.kind)).toEqual(["retry", "trim"]);
    expect(step?.after.map((event) => event.kind)).toEqual(["plan", "limit"]);
    expect(step).toMatchObject({
      step: 1,
      durationMs: 100,
      toolsMs: 10,
      tokens: 1_000_000,
      costUsd: 2,
    });
    expect(
      step?.blocks.map((block) => (block.kind === "call" ? block.call.result : block.kind)),
    ).toEqual([
      "text",
      {
        output: { text: "out of a", cut: 0 },
        isError: false,
        durationMs: 5,
        exitCode: 0,
        notes: [],
      },
      {
        output: { text: "the whole output", cut: 0 },
        isError: false,
        durationMs: 5,
        exitCode: null,
        notes: ["not run: the run ended first"],
      },
    ]);
  });

  test("a subagent nests under its task call; one started twice, or without its call, is left out", () => {
    const { agent, linesLeftOut } = buildAgents(
      [
        reply(1, null, ["task-1"]),
        started("task-1", null),
        reply(1, "task-1", ["c"]),
        result(1, "task-1", "c"),
        started("task-1", null),
        started("task-nowhere", null),
        reply(1, "task-nowhere", []),
        line({
          type: "system",
          subtype: "task_notification",
          tool_use_id: "task-1",
          parent_tool_use_id: null,
          run_status: "completed",
          num_turns: 1,
          usage: { total_tokens: 10 },
          cost_usd: 0.5,
          step: 1,
        }),
        result(1, null, "task-1"),
      ],
      context,
    );

    expect(linesLeftOut).toBe(3);
    const call = agent.steps[0]?.blocks[0];
    const subagent = call?.kind === "call" ? call.call.subagent : null;
    expect(subagent).toMatchObject({
      id: "task-1",
      description: "agent task-1",
      depth: 1,
      end: { status: "completed", turns: 1, tokens: 10, costUsd: 0.5 },
    });
    expect(subagent?.steps).toHaveLength(1);
  });

  test("subagents nest at most maxSubagentDepth deep; the lines of deeper ones are left out", () => {
    const lines = [reply(1, null, ["task-1"])];
    for (let depth = 1; depth <= 6; depth++) {
      const parent = depth === 1 ? null : `task-${depth - 1}`;
      lines.push(
        started(`task-${depth}`, parent),
        reply(1, `task-${depth}`, [`task-${depth + 1}`]),
      );
    }
    const { agent, linesLeftOut } = buildAgents(lines, context);

    expect(depthOf(agent)).toBe(3);
    expect(linesLeftOut).toBe(6);
  });
});
