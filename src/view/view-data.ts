// The data the viewer page is drawn from: built from run folders (load-view.ts), embedded in the
// page as JSON, read by the client script (client/*.js). Every string in it came from a run folder
// and is shown as text, never as HTML.

/** Text read from a run, bounded: `text` is what the page holds, `cut` the characters left out. */
export type BoundedText = { text: string; cut: number };

/** A reply's tokens, as the API counted them. */
export type ViewUsage = { input: number; output: number; cacheWrite: number; cacheRead: number };

/** What a tool call returned. `notes` name what else happened to it (not run, refused...). */
export type ViewToolResult = {
  output: BoundedText;
  isError: boolean;
  durationMs: number | null;
  exitCode: number | null;
  notes: string[];
};

/** One tool call, with its result and, for a `task` call, the subagent it started. */
export type ViewToolCall = {
  id: string;
  name: string;
  /** The input as pretty-printed JSON. */
  input: BoundedText;
  result: ViewToolResult | null;
  subagent: ViewAgent | null;
};

/** One block of a model reply. */
export type ViewBlock =
  | { kind: "text"; text: BoundedText }
  | { kind: "reasoning"; text: BoundedText }
  | { kind: "hidden_reasoning" }
  | { kind: "call"; call: ViewToolCall }
  | { kind: "other"; type: string };

/** What happened around a step besides the reply: retries, trims, limits, plans, notices. */
export type ViewEvent =
  | {
      kind: "retry";
      attempt: number;
      maxRetries: number;
      delayMs: number;
      status: number | null;
      message: BoundedText;
    }
  | { kind: "api_error"; status: number | null; message: BoundedText }
  | { kind: "trim"; removed: number | null; preTokens: number; postTokens: number | null }
  | { kind: "limit"; limit: string; used: number; max: number }
  | { kind: "plan"; completed: number; total: number; items: ViewPlanItem[] }
  | { kind: "notice"; text: BoundedText };

/** One item of the agent's plan. */
export type ViewPlanItem = { content: BoundedText; status: string };

/** One model call of an agent and what followed it. */
export type ViewStep = {
  step: number;
  /** The model call's latency. */
  durationMs: number | null;
  /** The tool calls' durations summed. */
  toolsMs: number;
  usage: ViewUsage;
  tokens: number;
  /** Estimated from the built-in price table; null when the model has no known price. */
  costUsd: number | null;
  stopReason: string | null;
  before: ViewEvent[];
  blocks: ViewBlock[];
  after: ViewEvent[];
};

/** How a subagent ended (its `task_notification` line). */
export type ViewAgentEnd = {
  status: string;
  turns: number;
  tokens: number;
  costUsd: number | null;
};

/** An agent's steps: the top-level agent (id "") or a subagent (its `task` call's id). */
export type ViewAgent = {
  id: string;
  description: string;
  depth: number;
  steps: ViewStep[];
  /** Events with no step to hang on (an API error before any reply). */
  trailing: ViewEvent[];
  end: ViewAgentEnd | null;
};

/** A run's transcript, as the page shows it. */
export type ViewTimeline = {
  prompt: BoundedText;
  model: string;
  tools: string[];
  agent: ViewAgent;
  finalText: BoundedText | null;
  errors: BoundedText[];
  /** Lines read, and whether the line or byte bound left some out. */
  linesRead: number;
  isCut: boolean;
  /** A subagent nested deeper than the bound, or lines of an unknown subagent, left out. */
  linesLeftOut: number;
};

/** One changed file: from the patch, with `summary.json`'s figures when it has them. */
export type ViewFile = {
  path: string;
  status: string;
  binary: boolean;
  mode: { before: string; after: string } | null;
  additions: number;
  deletions: number;
  /** The diff's lines (each starts with `+`, `-`, ` `, `@` or `\`); empty for a binary file. */
  lines: string[];
  linesCut: number;
};

/** A run's changes: the files and their diff. `note` says what could not be shown. */
export type ViewChanges = { files: ViewFile[]; note: string | null };

/** One check of a run. */
export type ViewCheck = {
  name: string;
  kind: string;
  passed: boolean;
  message: BoundedText;
  output: BoundedText | null;
  line: number;
  durationMs: number;
};

/** Where a replay's tool results differed from the recording (`divergence.json`). */
export type ViewDivergence = {
  comparedSteps: number;
  divergentSteps: number[];
  first: {
    step: number;
    toolName: string;
    subagent: { toolUseId: string; step: number } | null;
    recorded: BoundedText;
    replayed: BoundedText;
    diff: BoundedText;
  } | null;
};

/** One run of a task (a task run several times, as trials, has several). */
export type ViewRun = {
  /** The trial's number (its `summary.json`'s `trial`); null for a task run once. */
  trial: number | null;
  folder: string;
  taskFile: string;
  status: string;
  passed: boolean;
  error: BoundedText | null;
  model: string;
  steps: number;
  tokens: number;
  costUsd: number | null;
  durationMs: number;
  /** The limit that stopped the run, or that its final reply went past; null for none. */
  overLimit: string | null;
  plan: { completed: number; total: number } | null;
  changedFileCount: number;
  checks: ViewCheck[];
  timeline: ViewTimeline | null;
  /** Why the transcript could not be shown; null when it could. */
  timelineProblem: string | null;
  changes: ViewChanges;
  divergence: ViewDivergence | null;
  /** Set for replays, forks and resumes: how the run was made, and how many steps were recorded. */
  origin: { kind: string; steps: number } | null;
};

/** One task of a batch, with its runs (by trial) and how many passed, as `report` counts them. */
export type ViewTask = {
  name: string;
  runs: ViewRun[];
  passedRuns: number;
  /** Some runs passed and some did not. */
  isFlaky: boolean;
};

/** A batch's totals, as `agent-run report` computes them. */
export type ViewTotals = {
  tasks: number;
  /** Tasks whose every trial passed. */
  passed: number;
  failed: number;
  trials: number;
  passedTrials: number;
  flakyTasks: number;
  /** The batch's mean pass@1 (the tasks' mean pass rate); 0 for no task. */
  passAt1: number;
  steps: number;
  tokens: number;
  costUsd: number | null;
  durationMs: number;
  checks: number;
  failedChecks: number;
};

/** One batch: the folders it was read from, its tasks and its totals. */
export type ViewBatch = {
  label: string;
  tasks: ViewTask[];
  totals: ViewTotals;
  warnings: string[];
};

/** One side of a compared task: its outcome over its trials, and its figures per trial. */
export type CompareSide = {
  /** The run's status, or its trials' statuses counted (`2 completed, 1 max_steps`). */
  status: string;
  /** Every trial passed. */
  passed: boolean;
  passedTrials: number;
  trials: number;
  steps: number;
  tokens: number;
  costUsd: number | null;
};

/**
 * One task of a comparison (`report --compare`'s verdict, or `new`/`missing` for a task in one
 * batch only, whose other side is null); the deltas are per trial.
 */
export type CompareRow = {
  name: string;
  base: CompareSide | null;
  next: CompareSide | null;
  verdict:
    | "regressed"
    | "improved"
    | "flaky"
    | "pass_to_fail"
    | "fail_to_pass"
    | "unchanged"
    | "new"
    | "missing";
  /** Fisher's one-sided p-value of a drop; null for a task in one batch only. */
  pDrop: number | null;
  stepsDelta: number | null;
  tokensDelta: number | null;
  costDeltaUsd: number | null;
};

/** Two batches side by side (`view --compare BASE NEW`), as `report --compare` compares them. */
export type ViewCompare = {
  rows: CompareRow[];
  /** The mean pass rates over the tasks in both, the change and its interval. */
  meanRate: { base: number; next: number; delta: number; low: number; high: number; level: number };
  /** How the batches' fingerprints differ (`refused`: `report --compare` refuses it). */
  differences: { title: string; change: string; tasks: string[]; refused: boolean }[];
  /** What `--fail-on-regression` would decide, and why. */
  regression: { isRegression: boolean; reasons: string[]; regressedTasks: string[] };
};

/** The bounds the page was built under, shown in it. */
export type ViewBounds = {
  maxTranscriptBytes: number;
  maxTranscriptLines: number;
  maxPatchBytes: number;
  maxFieldChars: number;
  maxTotalChars: number;
  /** What each field keeps once the page holds `maxTotalChars`. */
  minFieldChars: number;
  maxDiffLineChars: number;
  maxSubagentDepth: number;
  maxChangedFiles: number;
};

/** The whole page: one batch, or two and their comparison. */
export type ViewPage = {
  title: string;
  generator: string;
  bounds: ViewBounds;
  batches: ViewBatch[];
  compare: ViewCompare | null;
};
