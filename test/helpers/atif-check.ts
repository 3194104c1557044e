import { z } from "zod";

// A checker of ATIF trajectories, written for these tests from Harbor's own definition of the
// format (no code of it copied): the pydantic models of `src/harbor/models/trajectories/`
// (Trajectory, Agent, Step, ToolCall, Observation, ObservationResult, SubagentTrajectoryRef,
// Metrics, FinalMetrics, ContentPart, ImageSource) as of ATIF v1.7, and
// `docs/rfcs/0001-trajectory-format.md` (v1.7). Python cannot install pydantic here, so the rules
// the models enforce are encoded again:
// - every model forbids fields it does not declare (`extra: "forbid"`);
// - required fields and their types: strings are strings, integers are integers (1.5 is not),
//   `extra` fields and tool arguments are JSON objects. Stricter than pydantic's lax mode, which
//   would also take "5" for an integer: our exports write JSON numbers and strings only;
// - Step: `step_id` >= 1; `source` is system, user or agent; `timestamp` ISO 8601 (as Python's
//   `datetime.fromisoformat` reads it, `Z` allowed); model_name, reasoning_effort,
//   reasoning_content, tool_calls and metrics only on agent steps; `llm_call_count` >= 0, and at
//   0 on an agent step no metrics and no reasoning_content;
// - Trajectory: at least one step; step ids sequential from 1; every observation result's
//   `source_call_id` names a tool call of its own step; every embedded subagent trajectory has a
//   `trajectory_id`, unique among its siblings (the rules hold in each embedded one too);
// - SubagentTrajectoryRef sets `trajectory_id` or `trajectory_path`; ContentPart has `text` for
//   type text and `source` (not text) for type image; FinalMetrics' `total_steps` >= 0.

const JsonObject = z.record(z.string(), z.unknown());
const optional = <T extends z.ZodType>(schema: T) => schema.nullish();

/** ISO 8601 as Python 3.11's `datetime.fromisoformat` reads it (after Harbor turns `Z` into +00:00). */
const ISO_8601 =
  /^\d{4}-\d{2}-\d{2}([T ]\d{2}(:\d{2}(:\d{2}(\.\d{1,6})?)?)?(Z|[+-]\d{2}:\d{2}(:\d{2})?)?)?$/;

const ImageSource = z.strictObject({
  media_type: z.enum(["image/jpeg", "image/png", "image/gif", "image/webp"]),
  path: z.string(),
});

const ContentPart = z
  .strictObject({
    type: z.enum(["text", "image"]),
    text: optional(z.string()),
    source: optional(ImageSource),
  })
  .superRefine((part, ctx) => {
    const hasText = part.text !== null && part.text !== undefined;
    const hasSource = part.source !== null && part.source !== undefined;
    if (part.type === "text" && (!hasText || hasSource)) {
      ctx.addIssue({ code: "custom", message: "a text part has text and no source" });
    }
    if (part.type === "image" && (!hasSource || hasText)) {
      ctx.addIssue({ code: "custom", message: "an image part has a source and no text" });
    }
  });

const Content = z.union([z.string(), z.array(ContentPart)]);

const ToolCall = z.strictObject({
  tool_call_id: z.string(),
  function_name: z.string(),
  arguments: JsonObject,
  extra: optional(JsonObject),
});

const SubagentTrajectoryRef = z
  .strictObject({
    trajectory_id: optional(z.string()),
    session_id: optional(z.string()),
    trajectory_path: optional(z.string()),
    extra: optional(JsonObject),
  })
  .refine(
    (ref) => (ref.trajectory_id ?? "").trim() !== "" || (ref.trajectory_path ?? "").trim() !== "",
    "a subagent ref sets trajectory_id or trajectory_path",
  );

const ObservationResult = z.strictObject({
  source_call_id: optional(z.string()),
  content: optional(Content),
  subagent_trajectory_ref: optional(z.array(SubagentTrajectoryRef)),
  extra: optional(JsonObject),
});

const Observation = z.strictObject({ results: z.array(ObservationResult) });

const Metrics = z.strictObject({
  prompt_tokens: optional(z.number().int()),
  completion_tokens: optional(z.number().int()),
  cached_tokens: optional(z.number().int()),
  cost_usd: optional(z.number()),
  prompt_token_ids: optional(z.array(z.number().int())),
  completion_token_ids: optional(z.array(z.number().int())),
  logprobs: optional(z.array(z.number())),
  extra: optional(JsonObject),
});

const AGENT_ONLY = [
  "model_name",
  "reasoning_effort",
  "reasoning_content",
  "tool_calls",
  "metrics",
] as const;

const StepShape = z.strictObject({
  step_id: z.number().int().min(1),
  timestamp: optional(
    z.string().refine((text) => ISO_8601.test(text) && !Number.isNaN(Date.parse(text)), {
      message: "not an ISO 8601 timestamp",
    }),
  ),
  source: z.enum(["system", "user", "agent"]),
  model_name: optional(z.string()),
  reasoning_effort: optional(z.union([z.string(), z.number()])),
  message: Content,
  reasoning_content: optional(z.string()),
  tool_calls: optional(z.array(ToolCall)),
  observation: optional(Observation),
  metrics: optional(Metrics),
  is_copied_context: optional(z.boolean()),
  llm_call_count: optional(z.number().int().min(0)),
  extra: optional(JsonObject),
});

// As pydantic's "after" validators: only once the fields are valid.
const Step = StepShape.pipe(
  z.custom<z.output<typeof StepShape>>().superRefine((step, ctx) => {
    const isSet = (field: string) => {
      const value: unknown = Reflect.get(step, field);
      return value !== null && value !== undefined;
    };
    for (const field of AGENT_ONLY) {
      if (step.source !== "agent" && isSet(field)) {
        ctx.addIssue({ code: "custom", message: `${field} only on agent steps`, path: [field] });
      }
    }
    for (const field of ["metrics", "reasoning_content"]) {
      if (step.source === "agent" && step.llm_call_count === 0 && isSet(field)) {
        ctx.addIssue({
          code: "custom",
          message: `${field} absent at llm_call_count 0`,
          path: [field],
        });
      }
    }
  }),
);

const Agent = z.strictObject({
  name: z.string(),
  version: z.string(),
  model_name: optional(z.string()),
  tool_definitions: optional(z.array(JsonObject)),
  extra: optional(JsonObject),
});

const FinalMetrics = z.strictObject({
  total_prompt_tokens: optional(z.number().int()),
  total_completion_tokens: optional(z.number().int()),
  total_cached_tokens: optional(z.number().int()),
  total_cost_usd: optional(z.number()),
  total_steps: optional(z.number().int().min(0)),
  extra: optional(JsonObject),
});

const VERSIONS = ["1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7"].map((v) => `ATIF-v${v}`);

type Trajectory = {
  steps: z.output<typeof StepShape>[];
  subagent_trajectories?: Trajectory[] | null | undefined;
  trajectory_id?: string | null | undefined;
};

const TrajectoryShape = z.strictObject({
  schema_version: optional(z.enum(VERSIONS)),
  session_id: optional(z.string()),
  trajectory_id: optional(z.string()),
  agent: Agent,
  steps: z.array(Step).min(1),
  notes: optional(z.string()),
  final_metrics: optional(FinalMetrics),
  continued_trajectory_ref: optional(z.string()),
  extra: optional(JsonObject),
  get subagent_trajectories() {
    return optional(z.array(TrajectorySchema));
  },
});

const TrajectorySchema: z.ZodType<Trajectory> = TrajectoryShape.pipe(
  z.custom<z.output<typeof TrajectoryShape>>().superRefine((trajectory, ctx) => {
    trajectory.steps.forEach((step, index) => {
      if (step.step_id !== index + 1) {
        ctx.addIssue({
          code: "custom",
          message: `step_id ${step.step_id}, expected ${index + 1}`,
          path: ["steps", index, "step_id"],
        });
      }
      const ids = new Set((step.tool_calls ?? []).map((call) => call.tool_call_id));
      for (const result of step.observation?.results ?? []) {
        const id = result.source_call_id;
        if (id !== null && id !== undefined && !ids.has(id)) {
          ctx.addIssue({
            code: "custom",
            message: `source_call_id ${id} is no tool call of step ${step.step_id}`,
            path: ["steps", index, "observation"],
          });
        }
      }
    });
    const seen = new Set<string>();
    (trajectory.subagent_trajectories ?? []).forEach((subagent, index) => {
      const id = subagent.trajectory_id;
      if (id === null || id === undefined || seen.has(id)) {
        ctx.addIssue({
          code: "custom",
          message: "an embedded subagent has a unique trajectory_id",
          path: ["subagent_trajectories", index],
        });
      } else seen.add(id);
    });
  }),
);

/** Every rule `value` breaks, as `path: message`; empty when Harbor's models would accept it. */
export function atifProblems(value: unknown): string[] {
  const parsed = TrajectorySchema.safeParse(value);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
}
