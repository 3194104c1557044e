import { describe, expect, test } from "vitest";
import { atifProblems } from "../helpers/atif-check.js";

// The ATIF checker (test/helpers/atif-check.ts) must refuse what Harbor's models refuse, or the
// exports' "passes the format" tests prove nothing: one broken trajectory per rule, one
// violation each, each one Harbor's pydantic models reject too.

type Json = Record<string, unknown>;

/** A valid trajectory, shaped like RFC 0001's example, with an embedded subagent. */
function valid(): Json {
  return {
    schema_version: "ATIF-v1.7",
    session_id: "s-1",
    agent: {
      name: "agent-run",
      version: "0.1.0",
      model_name: "m",
      tool_definitions: [{ type: "function", function: { name: "bash" } }],
    },
    steps: [
      { step_id: 1, timestamp: "2026-01-02T03:04:05.678Z", source: "system", message: "be good" },
      { step_id: 2, source: "user", message: "fix it", extra: {} },
      {
        step_id: 3,
        timestamp: "2026-01-02T03:04:06+00:00",
        source: "agent",
        model_name: "m",
        reasoning_effort: "high",
        message: "",
        reasoning_content: "think",
        tool_calls: [
          { tool_call_id: "c1", function_name: "bash", arguments: { command: "ls" } },
          { tool_call_id: "c2", function_name: "task", arguments: {} },
        ],
        observation: {
          results: [
            { source_call_id: "c1", content: "a.txt", extra: { exit_code: 0 } },
            {
              source_call_id: "c2",
              content: "done",
              subagent_trajectory_ref: [{ trajectory_id: "c2" }],
            },
          ],
        },
        metrics: { prompt_tokens: 10, completion_tokens: 2, cached_tokens: 0, cost_usd: 0.01 },
      },
    ],
    final_metrics: { total_prompt_tokens: 10, total_completion_tokens: 2, total_steps: 3 },
    extra: { status: "completed" },
    subagent_trajectories: [
      {
        trajectory_id: "c2",
        agent: { name: "agent-run", version: "0.1.0" },
        steps: [{ step_id: 1, source: "user", message: "survey" }],
      },
    ],
  };
}

/** `valid()` with one change made by `edit`. */
function broken(edit: (trajectory: Json & { steps: Json[] }) => void): unknown {
  const trajectory = structuredClone(valid()) as Json & { steps: Json[] };
  edit(trajectory);
  return trajectory;
}

const agentStep = (t: { steps: Json[] }) =>
  t.steps[2] as Json & { tool_calls: Json[]; observation: { results: Json[] }; metrics: Json };
const subagent = (t: Json) => (t.subagent_trajectories as Json[])[0] as Json & { steps: Json[] };

const CASES: [string, (t: Json & { steps: Json[] }) => void][] = [
  [
    "an unknown root field",
    (t) => {
      t.score = 1;
    },
  ],
  [
    "an unknown agent field",
    (t) => {
      (t.agent as Json).temperature = 0;
    },
  ],
  [
    "an unknown step field",
    (t) => {
      (t.steps[1] as Json).thoughts = "x";
    },
  ],
  [
    "an unknown tool call field",
    (t) => {
      (agentStep(t).tool_calls[0] as Json).id = "c1";
    },
  ],
  [
    "an unknown observation result field",
    (t) => {
      (agentStep(t).observation.results[0] as Json).output = "x";
    },
  ],
  [
    "an unknown metrics field",
    (t) => {
      agentStep(t).metrics.input_tokens = 1;
    },
  ],
  [
    "an unknown final metrics field",
    (t) => {
      (t.final_metrics as Json).steps = 3;
    },
  ],
  [
    "an agent without a version",
    (t) => {
      delete (t.agent as Json).version;
    },
  ],
  [
    "an agent name that is a number",
    (t) => {
      (t.agent as Json).name = 7;
    },
  ],
  [
    "no steps",
    (t) => {
      t.steps = [];
    },
  ],
  [
    "a step without a message",
    (t) => {
      delete (t.steps[1] as Json).message;
    },
  ],
  [
    "a message that is a number",
    (t) => {
      (t.steps[1] as Json).message = 3;
    },
  ],
  [
    "step ids that skip one",
    (t) => {
      (t.steps[2] as Json).step_id = 4;
    },
  ],
  [
    "a step id 0",
    (t) => {
      t.steps = [{ step_id: 0, source: "user", message: "x" }];
    },
  ],
  [
    "a source that is no source",
    (t) => {
      (t.steps[1] as Json).source = "assistant";
    },
  ],
  [
    "a timestamp that is no time",
    (t) => {
      (t.steps[1] as Json).timestamp = "yesterday";
    },
  ],
  [
    "tool calls on a user step",
    (t) => {
      (t.steps[1] as Json).tool_calls = [];
    },
  ],
  [
    "metrics on a system step",
    (t) => {
      (t.steps[0] as Json).metrics = { prompt_tokens: 1 };
    },
  ],
  [
    "reasoning on a user step",
    (t) => {
      (t.steps[1] as Json).reasoning_content = "hm";
    },
  ],
  [
    "a model name on a user step",
    (t) => {
      (t.steps[1] as Json).model_name = "m";
    },
  ],
  [
    "a reasoning effort on a system step",
    (t) => {
      (t.steps[0] as Json).reasoning_effort = "low";
    },
  ],
  [
    "metrics on an agent step of no LLM call",
    (t) => {
      agentStep(t).llm_call_count = 0;
      delete agentStep(t).reasoning_content;
    },
  ],
  [
    "a result for a call its step did not make",
    (t) => {
      (agentStep(t).observation.results[0] as Json).source_call_id = "c9";
    },
  ],
  [
    "fractional prompt tokens",
    (t) => {
      agentStep(t).metrics.prompt_tokens = 1.5;
    },
  ],
  [
    "a cost that is no number",
    (t) => {
      agentStep(t).metrics.cost_usd = "cheap";
    },
  ],
  [
    "tool arguments that are a list",
    (t) => {
      (agentStep(t).tool_calls[0] as Json).arguments = ["ls"];
    },
  ],
  [
    "a tool call without its id",
    (t) => {
      delete (agentStep(t).tool_calls[0] as Json).tool_call_id;
    },
  ],
  [
    "a function name that is a number",
    (t) => {
      (agentStep(t).tool_calls[0] as Json).function_name = 1;
    },
  ],
  [
    "a subagent ref with only a session id",
    (t) => {
      (agentStep(t).observation.results[1] as Json).subagent_trajectory_ref = [{ session_id: "s" }];
    },
  ],
  [
    "a text content part without text",
    (t) => {
      (t.steps[1] as Json).message = [{ type: "text" }];
    },
  ],
  [
    "negative total steps",
    (t) => {
      (t.final_metrics as Json).total_steps = -1;
    },
  ],
  [
    "an unknown schema version",
    (t) => {
      t.schema_version = "ATIF-v2.0";
    },
  ],
  [
    "an embedded subagent without a trajectory id",
    (t) => {
      delete subagent(t).trajectory_id;
    },
  ],
  [
    "two embedded subagents of one trajectory id",
    (t) => {
      t.subagent_trajectories = [subagent(t), subagent(t)];
    },
  ],
  [
    "a broken step inside an embedded subagent",
    (t) => {
      (subagent(t).steps[0] as Json).step_id = 2;
    },
  ],
];

describe("the ATIF checker", () => {
  test("accepts a valid trajectory", () => {
    expect(atifProblems(valid())).toEqual([]);
  });

  test.each(CASES)("rejects %s", (_name, edit) => {
    expect(atifProblems(broken(edit))).toHaveLength(1);
  });
});
