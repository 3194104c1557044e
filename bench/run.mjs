#!/usr/bin/env node
// `npm run bench`: agent-run against the minimal reference loop (bench/reference-loop.mjs), side
// by side, against the scripted mock model (bench/mock-server.mjs) on 127.0.0.1. Prints a table
// with the ratios and the targets of issue 6, and writes bench/results.json. The start and the
// per-step figures are measured on both wire formats: the default Anthropic Messages API, and
// chat completions (agent-run on the `openai` preset against the reference loop's `--wire
// openai`; issue 15).
//
//   node bench/run.mjs [--quick] [--runs N] [--only id,id,...] [--keep]
//
// --quick: fewer steps, tasks and files (for development; the targets are still checked).
// --only: run some measurements only: first-request, steps-50, steps-200, openai-first-request,
//         openai-steps-50, openai-steps-200, size-bound, workspace, batch, realistic-batch, replay,
//         view.
// --runs N: runs of each small timing (default 3; the figure is the median).
// --copy-runs N: runs of each 20,000-file copy (default: as --runs; each takes seconds).
// --wait-idle S: on a shared machine, first wait up to S seconds for the CPU to be idle.
// --keep: keep the temporary folder (printed) for inspection.
// Build first (`npm run bench` does): agent-run runs as `node bin/agent-run.js`, and the workspace
// figures call dist/workspace/*.js directly.

import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { childEnv, killAll, runNode, timeCommand } from "./lib/proc.mjs";
import { fmt, linearFit, markdownTable, median, round, sum } from "./lib/stats.mjs";
import { changeTwentyFiles, makeBigTree, makeSessionWorkspace } from "./lib/workspaces.mjs";
import { startMockServer } from "./mock-server.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(ROOT, "bin", "agent-run.js");
const REFERENCE = join(ROOT, "bench", "reference-loop.mjs");
const RESULTS = join(ROOT, "bench", "results.json");

const { values: flags } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    runs: { type: "string" },
    "copy-runs": { type: "string" },
    only: { type: "string" },
    keep: { type: "boolean", default: false },
    "wait-idle": { type: "string" },
  },
});
const QUICK = flags.quick;
const RUNS = Number(flags.runs ?? (QUICK ? 1 : 3));
const ONLY = flags.only ? new Set(flags.only.split(",")) : null;

/** Sizes of each measurement, full and --quick. */
const SIZE = QUICK
  ? {
      shortSteps: 10,
      longSteps: 40,
      files: 2_000,
      batchTasks: 16,
      batchSteps: 5,
      realisticTasks: 16,
      replaySteps: 100,
      boundSteps: 40,
    }
  : {
      shortSteps: 50,
      longSteps: 200,
      files: 20_000,
      batchTasks: 100,
      batchSteps: 10,
      realisticTasks: 32,
      replaySteps: 1_000,
      boundSteps: 200,
    };
/** Runs of each 20,000-file copy (seconds each; `--copy-runs 1` on a slow disk). */
const COPY_RUNS = Number(flags["copy-runs"] ?? RUNS);
const BATCH_LATENCY_MS = 50;
/** A real model's latency per call, for the batch that measures what users feel. */
const REALISTIC_LATENCY_MS = 1_000;
const REALISTIC_STEPS = 5;
const BATCH_CONCURRENCY = 8;
const PART_BYTES = 1_000;
const BIG_PART_BYTES = 10_240;
/** The model's context window assumed when agent-run has no `context.max_tokens` to set. */
const MODEL_CONTEXT_TOKENS = 200_000;
/** The `context.max_tokens` the request-size bound measurement sets, when agent-run accepts it. */
const CONTEXT_MAX_TOKENS = 50_000;
const MODEL = "claude-sonnet-5-5";
/**
 * The wire formats the start and per-step figures are measured on: the model, agent-run's task
 * lines (the `openai` preset pointed at the mock), the reference loop's flags, the measurement
 * ids' and labels' prefix, and whether the wire has prompt-cache breakpoints (the cache figures).
 */
const WIRES = {
  anthropic: {
    model: MODEL,
    taskLines: () => "",
    referenceArgs: [],
    idPrefix: "",
    labelPrefix: "",
    hasCacheBreakpoints: true,
  },
  openai: {
    model: "gpt-4.1",
    taskLines: (mockUrl) =>
      `provider:\n  name: openai\n  base_url: ${JSON.stringify(`${mockUrl}/v1`)}\n`,
    referenceArgs: ["--wire", "openai"],
    idPrefix: "openai-",
    labelPrefix: "openai preset: ",
    hasCacheBreakpoints: false,
  },
};
const PROMPT =
  "Read the data files in data/ with bash, one part per step, then summarise what they hold.";

const tmp = mkdtempSync(join(tmpdir(), "agent-run-bench-"));
const log = (line) => process.stderr.write(`[bench] ${line}\n`);

/** Every figure of the table, in order. */
const figures = [];
/** Per-measurement raw data for results.json. */
const raw = {};
const errors = {};

process.on("exit", () => {
  killAll();
  if (!flags.keep) rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
});
function cleanupAndExit(code) {
  process.exit(code);
}
process.on("SIGINT", () => cleanupAndExit(130));
process.on("SIGTERM", () => cleanupAndExit(143));

// ---------------------------------------------------------------------------------------------
// Sessions: one agent-run or reference-loop run against the mock

let taskCounter = 0;

/** A task file for agent-run; `extra` is YAML appended as is. */
function writeTask(
  dir,
  name,
  workspace,
  maxSteps,
  { prompt = PROMPT, model = MODEL, extra = "" } = {},
) {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    [
      `name: ${name}`,
      `prompt: ${JSON.stringify(prompt)}`,
      `workspace: ${JSON.stringify(workspace)}`,
      `model: ${model}`,
      "tools: [bash, read_file]",
      "limits:",
      `  max_steps: ${maxSteps}`,
      "  max_tokens: 1000000000", // total over all calls, cache reads included
      "  timeout: 30m",
      extra,
    ].join("\n"),
  );
  return file;
}

function readJsonl(file) {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));
}

/** Time inside tools of an agent-run transcript: the `duration_ms` of its tool result lines. */
function agentRunToolMs(lines) {
  return sum(
    lines
      .filter((line) => line.type === "user" && typeof line.tool_name === "string")
      .map((line) => Number(line.duration_ms) || 0),
  );
}

function requestFigures(requests) {
  return requests.map((request) => ({
    step: request.step,
    bytes: request.bytes,
    mock_ms: round(request.mockMs, 3),
    input_tokens: request.input_tokens,
    cache_creation_input_tokens: request.cache_creation_input_tokens,
    cache_read_input_tokens: request.cache_read_input_tokens,
    output_tokens: request.output_tokens,
  }));
}

/** Derived figures of one session run, from the mock's records and the tool times. */
function analyse(run, requests, toolMs) {
  const steps = requests.length;
  const mockMs = sum(requests.map((request) => request.mockMs ?? 0));
  const first = requests[0];
  const last = requests[requests.length - 1];
  const loopMockMs = sum(requests.slice(0, -1).map((request) => request.mockMs ?? 0));
  const inputTokens = sum(
    requests.map((r) => r.input_tokens + r.cache_creation_input_tokens + r.cache_read_input_tokens),
  );
  const readTokens = sum(requests.map((r) => r.cache_read_input_tokens));
  const bytes = requests.map((request) => request.bytes);
  const fit = linearFit(
    requests.map((_, index) => index + 1),
    bytes,
  );
  return {
    steps,
    wall_ms: run.wallMs,
    tool_ms: toolMs,
    mock_ms: mockMs,
    overhead_per_step_ms: (run.wallMs - toolMs - mockMs) / steps,
    first_request_ms: first ? first.arrivedAt - run.launchedAt : null,
    // The split of the overhead: before the first request, between requests, after the last reply.
    startup_ms: first ? first.arrivedAt - run.launchedAt : null,
    loop_per_step_ms:
      steps > 1 ? (last.arrivedAt - first.arrivedAt - loopMockMs - toolMs) / (steps - 1) : null,
    shutdown_ms: last?.finishedAt ? run.exitedAt - last.finishedAt : null,
    peak_rss_kb: run.peakRssKb,
    peak_rss_source: run.peakRssSource,
    bytes_first: bytes[0] ?? null,
    bytes_last: bytes[bytes.length - 1] ?? null,
    bytes_max: bytes.length > 0 ? Math.max(...bytes) : null,
    bytes_total: sum(bytes),
    bytes_growth_per_step: fit.slope,
    bytes_growth_r2: fit.r2,
    max_request_tokens: Math.max(
      0,
      ...requests.map(
        (r) => r.input_tokens + r.cache_creation_input_tokens + r.cache_read_input_tokens,
      ),
    ),
    input_tokens_total: inputTokens,
    cache_read_tokens_total: readTokens,
    cache_write_tokens_total: sum(requests.map((r) => r.cache_creation_input_tokens)),
    plain_input_tokens_total: sum(requests.map((r) => r.input_tokens)),
    cache_read_share: inputTokens === 0 ? null : readTokens / inputTokens,
    // What the input would bill at the usual multipliers (plain 1, cache write 1.25, cache read 0.1).
    billed_input_token_equivalent: sum(
      requests.map(
        (r) =>
          r.input_tokens + 1.25 * r.cache_creation_input_tokens + 0.1 * r.cache_read_input_tokens,
      ),
    ),
  };
}

function tail(text, lines = 15) {
  return text.trim().split("\n").slice(-lines).join("\n");
}

/** One agent-run session of `steps` model calls against the (reset) mock. */
async function agentRunSession(mock, options) {
  const { steps, workspace, command, memory = false, extra = "", wire = "anthropic" } = options;
  mock.reset();
  mock.configure({ script: { steps, command }, latencyMs: options.latencyMs ?? 0 });
  taskCounter += 1;
  const name = `session-${taskCounter}`;
  const taskFile = writeTask(join(tmp, "tasks"), name, workspace, steps + 5, {
    model: WIRES[wire].model,
    extra: `${WIRES[wire].taskLines(mock.url)}${extra}`,
  });
  const out = join(tmp, `out-${name}`);
  const run = await runNode([BIN, taskFile, "--out", out], {
    env: childEnv(mock.url),
    cwd: ROOT,
    memory,
    tmpDir: tmp,
    timeoutMs: 20 * 60_000,
  });
  const requests = [...mock.requests];
  const transcriptFile = join(out, name, "transcript.jsonl");
  if (run.code !== 0 || !existsSync(transcriptFile)) {
    const error = new Error(
      `agent-run exited ${run.code ?? run.signal} (${requests.length} requests)\n${tail(run.stderr)}\n${tail(run.stdout)}`,
    );
    error.run = run;
    error.requests = requests;
    throw error;
  }
  const lines = readJsonl(transcriptFile);
  const result = lines.find((line) => line.type === "result");
  if (result?.status !== "completed") throw new Error(`agent-run ended ${result?.status}`);
  const figures = analyse(run, requests, agentRunToolMs(lines));
  // Each run's outputs stay until the bench ends (with the temporary folder): deleting files here
  // would slow every file created in the next minutes on ext4 without a journal (see the
  // 20,000-file tree below), the batch's above all.
  return { ...figures, requests: requestFigures(requests), out, name, transcript: transcriptFile };
}

/** The same session through the reference loop. */
async function referenceSession(mock, options) {
  const { steps, workspace, command, memory = false, wire = "anthropic" } = options;
  mock.reset();
  mock.configure({ script: { steps, command }, latencyMs: options.latencyMs ?? 0 });
  taskCounter += 1;
  const transcript = join(tmp, `reference-${taskCounter}.jsonl`);
  const run = await runNode(
    [
      REFERENCE,
      "--workspace",
      workspace,
      "--prompt",
      PROMPT,
      "--transcript",
      transcript,
      "--max-steps",
      String(steps + 5),
      "--model",
      WIRES[wire].model,
      ...WIRES[wire].referenceArgs,
    ],
    { env: childEnv(mock.url), cwd: ROOT, memory, tmpDir: tmp, timeoutMs: 20 * 60_000 },
  );
  const requests = [...mock.requests];
  if (run.code !== 0) {
    throw new Error(`reference loop exited ${run.code ?? run.signal}\n${tail(run.stderr)}`);
  }
  const lines = readJsonl(transcript);
  const toolMs = sum(
    lines
      .filter((line) => line.type === "step")
      .flatMap((line) => line.tools.map((tool) => tool.duration_ms)),
  );
  return { ...analyse(run, requests, toolMs), requests: requestFigures(requests) };
}

/** Runs agent-run and the reference loop `runs` times each, alternating. */
async function sideBySide(mock, options, runs) {
  const agent = [];
  const reference = [];
  for (let i = 0; i < runs; i += 1) {
    agent.push(await agentRunSession(mock, options));
    reference.push(await referenceSession(mock, options));
  }
  return { agent, reference };
}

const pick = (runs, key) => median(runs.map((run) => run[key]));
const withoutRequests = (runs) => runs.map(({ requests: _requests, ...rest }) => rest);

// ---------------------------------------------------------------------------------------------
// Figures

/**
 * Adds a row. target: { kind: "ratio<=" | "value<=" | "value>=", limit, text } or null (info).
 * For "ratio<=" the ratio is value / reference.
 */
function addFigure(figure) {
  const ratio =
    figure.reference !== null &&
    figure.reference !== undefined &&
    figure.value !== null &&
    figure.value !== undefined &&
    figure.reference !== 0
      ? figure.value / figure.reference
      : null;
  let pass = null;
  if (figure.target) {
    const { kind, limit } = figure.target;
    if (kind === "ratio<=") pass = ratio === null ? false : ratio <= limit;
    if (kind === "value<=") pass = figure.value === null ? false : figure.value <= limit;
    if (kind === "value>=") pass = figure.value === null ? false : figure.value >= limit;
  }
  figures.push({ ...figure, ratio, pass });
}

const TARGETS = {
  firstRequest: { kind: "ratio<=", limit: 2, text: "≤ 2× ref" },
  overhead: { kind: "ratio<=", limit: 1.5, text: "≤ 1.5× ref" },
  rss: { kind: "ratio<=", limit: 1.3, text: "≤ 1.3× ref" },
  cacheShare: { kind: "value>=", limit: 0.9, text: "≥ 90%" },
  changedFiles: { kind: "ratio<=", limit: 2, text: "≤ 2× git status" },
  copy: { kind: "ratio<=", limit: 1.5, text: "≤ 1.5× cp -r" },
  batch: { kind: "ratio<=", limit: 1.3, text: "≤ 1.3× ideal" },
  realisticBatch: { kind: "ratio<=", limit: 1.03, text: "≤ 1.03× ideal" },
  batchGrowth: { kind: "value<=", limit: 1.2, text: "≤ 1.2 (flat)" },
  replay: { kind: "value<=", limit: 2, text: "≤ 2 ms/step" },
};

async function measure(id, fn) {
  if (ONLY && !ONLY.has(id)) return;
  const startedAt = performance.now();
  log(`${id}: start`);
  try {
    await fn();
  } catch (error) {
    errors[id] = error instanceof Error ? error.message : String(error);
    log(`${id}: FAILED: ${errors[id]}`);
    figures.push({
      id,
      label: `${id} (measurement failed)`,
      value: null,
      reference: null,
      ratio: null,
      target: { text: "see errors" },
      pass: false,
      error: errors[id],
    });
  } finally {
    killAll();
    log(`${id}: done in ${fmt((performance.now() - startedAt) / 1000, 1)}s`);
  }
}

// ---------------------------------------------------------------------------------------------

/** CPU time in use on the machine (all processes, this bench's included) since `from`. */
function cpuTimes() {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1);
  const numbers = fields.map(Number);
  const idle = numbers[3] + (numbers[4] ?? 0);
  return { idle, total: sum(numbers) };
}
function busyShare(from, to) {
  const total = to.total - from.total;
  return total <= 0 ? null : 1 - (to.idle - from.idle) / total;
}
let machine = {};
const waitIdleS = Number(flags["wait-idle"] ?? 0);
if (waitIdleS > 0) {
  const until = performance.now() + waitIdleS * 1000;
  let quiet = 0;
  while (performance.now() < until && quiet < 5) {
    const from = cpuTimes();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    quiet = busyShare(from, cpuTimes()) < 0.1 ? quiet + 1 : 0;
  }
  log(quiet >= 5 ? "the machine is idle" : `still busy after ${waitIdleS}s; starting anyway`);
}
try {
  const before = cpuTimes();
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  machine = { busy_before_start: busyShare(before, cpuTimes()), load_before_start: loadavg()[0] };
  if (machine.busy_before_start > 0.25) {
    log(
      `warning: the machine is busy (${fmt(machine.busy_before_start * 100, 0)}% of its CPU in use before the bench started); the figures will be noisy`,
    );
  }
} catch {
  // no /proc/stat
}
const cpuAtStart = (() => {
  try {
    return cpuTimes();
  } catch {
    return null;
  }
})();

const mock = await startMockServer();
const smallWs = makeSessionWorkspace(join(tmp, "ws-small"), PART_BYTES);
const bigWs = makeSessionWorkspace(join(tmp, "ws-10k"), BIG_PART_BYTES, 2);
const benchStartedAt = performance.now();
log(
  `temporary folder ${tmp}; mock model at ${mock.url}; ${QUICK ? "quick" : "full"} run, ${RUNS} run(s) per timing`,
);

/** Launch → first model request, agent-run against the reference loop, on one wire format. */
async function measureFirstRequest(wire) {
  const { idPrefix, labelPrefix } = WIRES[wire];
  const key = idPrefix.replaceAll("-", "_");
  const session = { steps: 1, workspace: smallWs, wire };
  // One untimed run of each first, so both start from a warm disk cache.
  await agentRunSession(mock, session);
  await referenceSession(mock, session);
  const runs = Math.max(RUNS, 3);
  const { agent, reference } = await sideBySide(mock, session, runs);
  raw[`${key}first_request`] = {
    agent: withoutRequests(agent),
    reference: withoutRequests(reference),
  };
  addFigure({
    id: `${key}first_request_ms`,
    label: `${labelPrefix}launch → first model request`,
    unit: "ms",
    value: pick(agent, "first_request_ms"),
    reference: pick(reference, "first_request_ms"),
    target: TARGETS.firstRequest,
  });
}

/**
 * Per-step overhead of a session of `steps` model calls, agent-run against the reference loop, on
 * one wire format; the long session adds its split, memory and request sizes, the short one its
 * cache figures (on a wire with breakpoints).
 */
async function measureSteps(steps, wire) {
  const isLong = steps === SIZE.longSteps;
  const { idPrefix, labelPrefix, hasCacheBreakpoints } = WIRES[wire];
  const key = idPrefix.replaceAll("-", "_");
  const { agent, reference } = await sideBySide(
    mock,
    { steps, workspace: smallWs, memory: isLong, wire },
    RUNS,
  );
  raw[`${key}steps_${steps}`] = {
    agent: withoutRequests(agent),
    reference: withoutRequests(reference),
    requests: { agent: agent[0].requests, reference: reference[0].requests },
  };
  addFigure({
    id: `${key}overhead_per_step_${steps}_ms`,
    label: `${labelPrefix}per-step overhead, ${steps} steps`,
    unit: "ms",
    value: pick(agent, "overhead_per_step_ms"),
    reference: pick(reference, "overhead_per_step_ms"),
    target: TARGETS.overhead,
    digits: 2,
  });
  addFigure({
    id: `${key}loop_per_step_${steps}_ms`,
    label: `  of which between requests (per step)`,
    unit: "ms",
    value: pick(agent, "loop_per_step_ms"),
    reference: pick(reference, "loop_per_step_ms"),
    target: null,
    digits: 2,
  });
  if (isLong) {
    addFigure({
      id: `${key}startup_${steps}_ms`,
      label: "  of which before the 1st request",
      unit: "ms",
      value: pick(agent, "startup_ms"),
      reference: pick(reference, "startup_ms"),
      target: null,
    });
    addFigure({
      id: `${key}shutdown_${steps}_ms`,
      label: "  of which after the last reply",
      unit: "ms",
      value: pick(agent, "shutdown_ms"),
      reference: pick(reference, "shutdown_ms"),
      target: null,
    });
    addFigure({
      id: `${key}peak_rss_${steps}_mb`,
      label: `${labelPrefix}peak RSS, ${steps} steps`,
      unit: "MB",
      value: pick(agent, "peak_rss_kb") / 1024,
      reference: pick(reference, "peak_rss_kb") / 1024,
      target: TARGETS.rss,
      note: agent[0].peak_rss_source,
    });
    addFigure({
      id: `${key}request_growth_${steps}_bytes_per_step`,
      label: `${labelPrefix}request size growth, ${steps} steps (1 KB outputs)`,
      unit: "B/step",
      value: agent[0].bytes_growth_per_step,
      reference: reference[0].bytes_growth_per_step,
      target: null,
      digits: 0,
    });
    addFigure({
      id: `${key}request_max_${steps}_kb`,
      label: `  largest request (step ${steps})`,
      unit: "KB",
      value: agent[0].bytes_max / 1024,
      reference: reference[0].bytes_max / 1024,
      target: null,
    });
    addFigure({
      id: `${key}bytes_total_${steps}_mb`,
      label: `  bytes sent in all, ${steps} steps`,
      unit: "MB",
      value: agent[0].bytes_total / 1024 / 1024,
      reference: reference[0].bytes_total / 1024 / 1024,
      target: null,
      digits: 2,
    });
  } else {
    addFigure({
      id: `${key}request_first_${steps}_kb`,
      label: `${labelPrefix}first request size`,
      unit: "KB",
      value: agent[0].bytes_first / 1024,
      reference: reference[0].bytes_first / 1024,
      target: null,
      digits: 2,
    });
    if (!hasCacheBreakpoints) return;
    addFigure({
      id: `${key}cache_read_share_${steps}`,
      label: `cache-read share of input tokens, ${steps} steps`,
      unit: "%",
      value: agent[0].cache_read_share,
      reference: reference[0].cache_read_share,
      target: TARGETS.cacheShare,
      percent: true,
    });
    addFigure({
      id: `${key}billed_input_${steps}_ktok`,
      label: "  billed input, token-equivalents",
      unit: "ktok",
      value: agent[0].billed_input_token_equivalent / 1000,
      reference: reference[0].billed_input_token_equivalent / 1000,
      target: null,
    });
  }
}

for (const wire of Object.keys(WIRES)) {
  const { idPrefix } = WIRES[wire];
  await measure(`${idPrefix}first-request`, () => measureFirstRequest(wire));
  for (const steps of [SIZE.shortSteps, SIZE.longSteps]) {
    const size = steps === SIZE.longSteps ? "steps-200" : "steps-50";
    await measure(`${idPrefix}${size}`, () => measureSteps(steps, wire));
  }
}

await measure("size-bound", async () => {
  const steps = SIZE.boundSteps;
  // Bound the context through the task when agent-run accepts `context.max_tokens`; else the
  // bound is the model's context window.
  let limit = CONTEXT_MAX_TOKENS;
  let limitSource = `context.max_tokens: ${CONTEXT_MAX_TOKENS}`;
  let agent;
  try {
    agent = await agentRunSession(mock, {
      steps,
      workspace: bigWs,
      extra: `context:\n  max_tokens: ${CONTEXT_MAX_TOKENS}\n`,
    });
  } catch (error) {
    const requests = error.requests ?? [];
    const refused =
      requests.length === 0 && error.run?.code === 2 && /context/.test(error.run?.stderr ?? "");
    if (!refused) throw error;
    log("size-bound: agent-run refuses `context.max_tokens`; running without it");
    limit = MODEL_CONTEXT_TOKENS;
    limitSource = `no context.max_tokens in agent-run; the model's ${MODEL_CONTEXT_TOKENS.toLocaleString("en-US")}-token window`;
    agent = await agentRunSession(mock, { steps, workspace: bigWs });
  }
  const reference = await referenceSession(mock, { steps, workspace: bigWs });
  raw.size_bound = {
    limit_tokens: limit,
    limit_source: limitSource,
    agent: withoutRequests([agent])[0],
    reference: withoutRequests([reference])[0],
    requests: { agent: agent.requests, reference: reference.requests },
  };
  addFigure({
    id: `size_bound_max_request_${steps}_ktok`,
    label: `largest request, ${steps} steps × 10 KB outputs`,
    unit: "ktok",
    value: agent.max_request_tokens / 1000,
    reference: reference.max_request_tokens / 1000,
    target: { kind: "value<=", limit: limit / 1000, text: `≤ ${fmt(limit / 1000, 0)} ktok` },
    note: limitSource,
  });
  addFigure({
    id: `size_bound_max_request_${steps}_kb`,
    label: "  the same in bytes",
    unit: "KB",
    value: agent.bytes_max / 1024,
    reference: reference.bytes_max / 1024,
    target: null,
  });
  addFigure({
    id: `size_bound_billed_input_${steps}_ktok`,
    label: "  billed input of that session, token-equivalents",
    unit: "ktok",
    value: agent.billed_input_token_equivalent / 1000,
    reference: reference.billed_input_token_equivalent / 1000,
    target: null,
    digits: 0,
    note: `cache-read share: agent-run ${fmt(agent.cache_read_share * 100, 1)}%, reference ${fmt(reference.cache_read_share * 100, 1)}%`,
  });
});

await measure("batch", async () => {
  const tasks = SIZE.batchTasks;
  const steps = SIZE.batchSteps;
  mock.reset();
  mock.configure({ script: { steps }, latencyMs: BATCH_LATENCY_MS });
  const dir = join(tmp, "batch-tasks");
  for (let i = 1; i <= tasks; i += 1) {
    const name = `batch-${String(i).padStart(3, "0")}`;
    writeTask(dir, name, smallWs, steps + 5, { prompt: `${PROMPT} (batch task ${i})` });
  }
  const out = join(tmp, "batch-out");
  const samples = [];
  const run = await runNode(
    [BIN, join(dir, "*.yaml"), "--concurrency", String(BATCH_CONCURRENCY), "--out", out],
    {
      env: childEnv(mock.url),
      cwd: ROOT,
      memory: true,
      tmpDir: tmp,
      sampleMs: 50,
      onSample: (sample) => samples.push({ ...sample, finished: mock.finishedSessions() }),
      timeoutMs: 20 * 60_000,
    },
  );
  const requests = mock.requests.length;
  const finished = mock.finishedSessions();
  const idealMs = (tasks * steps * BATCH_LATENCY_MS) / BATCH_CONCURRENCY;
  if (run.code !== 0 || finished !== tasks) {
    throw new Error(
      `agent-run exited ${run.code ?? run.signal}, ${finished}/${tasks} tasks finished\n${tail(run.stderr)}`,
    );
  }
  // Memory against finished tasks: median VmRSS while up to 40% of the tasks had finished (and at
  // least one), against while 60% or more had (and not all). Tasks that finish in waves can leave
  // a window empty; then the halves (up to 50%, over 50%) are used.
  const window = (test) =>
    median(
      samples
        .filter((s) => s.rssKb && s.finished > 0 && s.finished < tasks && test(s.finished))
        .map((s) => s.rssKb),
    );
  let early = window((finished) => finished <= 0.4 * tasks);
  let late = window((finished) => finished >= 0.6 * tasks);
  if (early === null || late === null) {
    early = window((finished) => finished <= 0.5 * tasks);
    late = window((finished) => finished > 0.5 * tasks);
  }
  raw.batch = {
    tasks,
    steps,
    latency_ms: BATCH_LATENCY_MS,
    concurrency: BATCH_CONCURRENCY,
    requests,
    wall_ms: run.wallMs,
    ideal_ms: idealMs,
    peak_rss_kb: run.peakRssKb,
    rss_early_kb: early,
    rss_late_kb: late,
    rss_samples: samples
      .filter((_, index) => index % 4 === 0)
      .map((s) => ({ at_ms: Math.round(s.at), rss_kb: s.rssKb, finished: s.finished })),
  };
  addFigure({
    id: `batch_${tasks}x${steps}_wall_ms`,
    label: `batch ${tasks} tasks × ${steps} steps, ${BATCH_LATENCY_MS} ms, -j ${BATCH_CONCURRENCY}`,
    unit: "ms",
    value: run.wallMs,
    reference: idealMs,
    referenceLabel: "ideal",
    target: TARGETS.batch,
    digits: 0,
  });
  addFigure({
    id: `batch_${tasks}x${steps}_peak_rss_mb`,
    label: "  peak RSS of the batch",
    unit: "MB",
    value: run.peakRssKb / 1024,
    reference: null,
    target: null,
    note: run.peakRssSource,
  });
  addFigure({
    id: `batch_${tasks}x${steps}_rss_growth`,
    label: "  RSS with ≥ 60% of tasks done / with ≤ 40% done",
    unit: "×",
    value: early && late ? late / early : null,
    reference: null,
    target: TARGETS.batchGrowth,
    digits: 2,
    note: `${fmt(early / 1024)} MB → ${fmt(late / 1024)} MB (medians of VmRSS samples every 50 ms)`,
  });
});

// What users feel: a batch at a real model's latency (about 1 s a call). agent-run's own work
// should vanish behind the model: the target is the ideal wall time (tasks × steps × latency /
// concurrency) plus 3%.
await measure("realistic-batch", async () => {
  const tasks = SIZE.realisticTasks;
  const steps = REALISTIC_STEPS;
  const dir = join(tmp, "realistic-tasks");
  for (let i = 1; i <= tasks; i += 1) {
    const name = `realistic-${String(i).padStart(3, "0")}`;
    writeTask(dir, name, smallWs, steps + 5, { prompt: `${PROMPT} (realistic task ${i})` });
  }
  // Each run takes ~20 s and wobbles by ~0.5%: the figure is the median of `--runs` runs.
  const runs = [];
  for (let index = 0; index < RUNS; index += 1) {
    mock.reset();
    mock.configure({ script: { steps }, latencyMs: REALISTIC_LATENCY_MS });
    const out = join(tmp, `realistic-out-${index}`);
    const run = await runNode(
      [BIN, join(dir, "*.yaml"), "--concurrency", String(BATCH_CONCURRENCY), "--out", out],
      { env: childEnv(mock.url), cwd: ROOT, memory: true, tmpDir: tmp, timeoutMs: 20 * 60_000 },
    );
    const finished = mock.finishedSessions();
    if (run.code !== 0 || finished !== tasks) {
      throw new Error(
        `agent-run exited ${run.code ?? run.signal}, ${finished}/${tasks} tasks finished\n${tail(run.stderr)}`,
      );
    }
    runs.push({ wall_ms: run.wallMs, peak_rss_kb: run.peakRssKb, requests: mock.requests.length });
  }
  const idealMs = (tasks * steps * REALISTIC_LATENCY_MS) / BATCH_CONCURRENCY;
  raw.realistic_batch = {
    tasks,
    steps,
    latency_ms: REALISTIC_LATENCY_MS,
    concurrency: BATCH_CONCURRENCY,
    ideal_ms: idealMs,
    runs,
  };
  addFigure({
    id: `realistic_batch_${tasks}x${steps}_wall_ms`,
    label: `batch ${tasks} tasks × ${steps} steps, ${REALISTIC_LATENCY_MS} ms, -j ${BATCH_CONCURRENCY}`,
    unit: "ms",
    value: pick(runs, "wall_ms"),
    reference: idealMs,
    referenceLabel: "ideal",
    target: TARGETS.realisticBatch,
    digits: 0,
    note: `runs: ${runs.map((run) => fmt(run.wall_ms, 0)).join(", ")} ms; peak RSS ${fmt(pick(runs, "peak_rss_kb") / 1024)} MB`,
  });
});

await measure("replay", async () => {
  const steps = SIZE.replaySteps;
  const command = (step) => `head -c 200 data/part-${step % 10}.txt`;
  const recorded = await agentRunSession(mock, {
    steps,
    workspace: smallWs,
    command,
  });
  const out = join(tmp, "replay-out");
  const run = await runNode([BIN, "replay", recorded.transcript, "--out", out], {
    env: childEnv(undefined),
    cwd: ROOT,
    timeoutMs: 20 * 60_000,
  });
  const transcript = join(out, recorded.name, "transcript.jsonl");
  if (run.code !== 0 || !existsSync(transcript)) {
    throw new Error(`agent-run replay exited ${run.code ?? run.signal}\n${tail(run.stderr)}`);
  }
  const lines = readJsonl(transcript);
  const toolMs = agentRunToolMs(lines);
  const replayedSteps = lines.filter((line) => line.type === "assistant").length;
  const perStep = (run.wallMs - toolMs) / replayedSteps;
  raw.replay = {
    steps: replayedSteps,
    wall_ms: run.wallMs,
    tool_ms: toolMs,
    per_step_ms: perStep,
    recording: withoutRequests([recorded])[0],
  };
  addFigure({
    id: `replay_${steps}_ms_per_step`,
    label: `replay of a ${steps.toLocaleString("en-US")}-step transcript, beyond tools`,
    unit: "ms/step",
    value: perStep,
    reference: null,
    target: TARGETS.replay,
    digits: 2,
    note: `wall ${fmt(run.wallMs, 0)} ms, tools ${fmt(toolMs, 0)} ms`,
  });
  addFigure({
    id: `recording_overhead_${steps}_ms`,
    label: `  (recording it: per-step overhead, ${steps.toLocaleString("en-US")} steps)`,
    unit: "ms",
    value: recorded.overhead_per_step_ms,
    reference: null,
    target: null,
    digits: 2,
  });
});

// The viewer (issue 19): one HTML file for a long run and for a big batch. Its size and the time
// `agent-run view` takes to write it; the batch is the one measured above, or run here at 0 ms.
await measure("view", async () => {
  const steps = SIZE.longSteps;
  const session = await agentRunSession(mock, { steps, workspace: smallWs });
  let batchOut = join(tmp, "batch-out");
  if (!existsSync(batchOut)) {
    mock.reset();
    mock.configure({ script: { steps: SIZE.batchSteps }, latencyMs: 0 });
    const dir = join(tmp, "view-batch-tasks");
    for (let i = 1; i <= SIZE.batchTasks; i += 1) {
      const name = `view-${String(i).padStart(3, "0")}`;
      writeTask(dir, name, smallWs, SIZE.batchSteps + 5, { prompt: `${PROMPT} (view task ${i})` });
    }
    batchOut = join(tmp, "view-batch-out");
    const run = await runNode(
      [BIN, join(dir, "*.yaml"), "--concurrency", String(BATCH_CONCURRENCY), "--out", batchOut],
      { env: childEnv(mock.url), cwd: ROOT, tmpDir: tmp, timeoutMs: 20 * 60_000 },
    );
    if (run.code !== 0)
      throw new Error(`the batch exited ${run.code ?? run.signal}\n${tail(run.stderr)}`);
  }
  const views = {};
  for (const [key, folder] of [
    ["run", session.out],
    ["batch", batchOut],
  ]) {
    const file = join(tmp, `view-${key}.html`);
    const times = [];
    for (let index = 0; index < RUNS; index += 1) {
      const run = await runNode([BIN, "view", folder, "-o", file], {
        env: childEnv(undefined),
        cwd: ROOT,
        memory: true,
        tmpDir: tmp,
        timeoutMs: 5 * 60_000,
      });
      if (run.code !== 0)
        throw new Error(`agent-run view exited ${run.code ?? run.signal}\n${tail(run.stderr)}`);
      times.push({ wall_ms: run.wallMs, peak_rss_kb: run.peakRssKb });
    }
    views[key] = { bytes: statSync(file).size, runs: times };
  }
  raw.view = views;
  const rows = [
    ["run", `view of a ${steps}-step run`],
    ["batch", `view of a ${SIZE.batchTasks}-task batch (${SIZE.batchSteps} steps each)`],
  ];
  for (const [key, label] of rows) {
    const view = views[key];
    addFigure({
      id: `view_${key}_kb`,
      label: `${label}: file size`,
      unit: "KB",
      value: view.bytes / 1024,
      reference: null,
      target: null,
      digits: 0,
    });
    addFigure({
      id: `view_${key}_ms`,
      label: "  time to write it",
      unit: "ms",
      value: pick(view.runs, "wall_ms"),
      reference: null,
      target: null,
      digits: 0,
      note: `${label}: peak RSS ${fmt(pick(view.runs, "peak_rss_kb") / 1024)} MB`,
    });
  }
});

// The 20,000-file tree comes last: its copies write ~140,000 files, and for minutes after that this
// kind of disk (a virtual machine's, with discard) creates files more slowly, which the batch and
// the replay, measured before it, would otherwise pay for.
await measure("workspace", async () => {
  const snapshot = await import(pathToFileURL(join(ROOT, "dist/workspace/snapshot.js")).href);
  const changes = await import(pathToFileURL(join(ROOT, "dist/workspace/changes.js")).href);
  const prepare = await import(pathToFileURL(join(ROOT, "dist/workspace/prepare.js")).href);
  const tree = join(tmp, "big");
  const generatedAt = performance.now();
  const paths = makeBigTree(tree, SIZE.files);
  log(
    `workspace: ${SIZE.files} files generated in ${fmt((performance.now() - generatedAt) / 1000, 1)}s`,
  );
  // Each timed step starts with the page cache's dirty data written out (`sync`, not timed):
  // otherwise the write-back of the previous step's files slows the next one down.
  const sync = () => execFileSync("sync");

  // Copy: `cp -r` against prepareWorkspace (what a copy-mode run does), from the same tree.
  // On a virtual machine the first big write after files were deleted can be many times slower
  // than the next ones (memory handed back to the host, discards); so one untimed `cp -r` first,
  // then the timed copies, each into a folder of its own (nothing deleted in between), with
  // `sync` before each (untimed) and the order alternating between runs. The last copies are
  // kept: the `cp -r` one becomes the git repository, the other agent-run's workspace.
  const copy = { agent: [], reference: [], runs: COPY_RUNS };
  const copies = [join(tmp, "big-cp-warm")];
  sync();
  await timeCommand("cp", ["-r", tree, copies[0]]);
  let cpTarget = null;
  let prepareDir = null;
  const copyWithCp = async () => {
    cpTarget = join(tmp, `big-cp-${copy.reference.length}`);
    copies.push(cpTarget);
    sync();
    copy.reference.push((await timeCommand("cp", ["-r", tree, cpTarget])).ms);
  };
  const copyWithPrepare = async () => {
    prepareDir = join(tmp, `big-prepare-${copy.agent.length}`);
    copies.push(prepareDir);
    sync();
    const startedAt = performance.now();
    await prepare.prepareWorkspace({ source: tree, runDir: prepareDir, inPlace: false });
    copy.agent.push(performance.now() - startedAt);
  };
  for (let i = 0; i < COPY_RUNS; i += 1) {
    if (i % 2 === 0) {
      await copyWithCp();
      await copyWithPrepare();
    } else {
      await copyWithPrepare();
      await copyWithCp();
    }
  }
  // Nothing here is deleted until the bench ends (with the temporary folder): on ext4 without a
  // journal (this machine's disk), every file created in the next minutes after a mass delete
  // scans the recently freed inodes, which made a batch measured after it ~15% slower.
  const gitTree = cpTarget;
  const runDir = prepareDir;
  raw.workspace_copy = copy;
  addFigure({
    id: `workspace_copy_${SIZE.files}_ms`,
    label: `workspace copy, ${SIZE.files.toLocaleString("en-US")} files`,
    unit: "ms",
    value: median(copy.agent),
    reference: median(copy.reference),
    referenceLabel: "cp -r",
    target: TARGETS.copy,
    note: `runs: prepareWorkspace ${copy.agent.map((ms) => fmt(ms, 0)).join(", ")} ms; cp -r ${copy.reference.map((ms) => fmt(ms, 0)).join(", ")} ms`,
  });

  // Changed files: agent-run snapshots its copy (as a run does before the agent starts); the
  // `cp -r` copy becomes a git repository with everything committed. The same 20 files change
  // in both; then `git status --porcelain` against snapshot + diff, alternating.
  const workspace = join(runDir, "workspace");
  const gitDir = join(tmp, "big-snapshot.git");
  sync();
  const beforeAt = performance.now();
  const before = await snapshot.snapshotWorkspace({ workspace, gitDir });
  const initialSnapshotMs = performance.now() - beforeAt;
  const git = (args) =>
    execFileSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@localhost", ...args], {
      cwd: gitTree,
      stdio: ["ignore", "pipe", "pipe"],
      maxBuffer: 64 * 1024 * 1024,
    });
  git(["init", "-q"]);
  // No automatic `git gc` in the background (20,000 loose objects would start one).
  git(["config", "gc.auto", "0"]);
  git(["config", "maintenance.auto", "false"]);
  git(["add", "-A"]);
  git(["commit", "-q", "-m", "bench"]);
  git(["status", "--porcelain"]); // refreshes the index once, as a repository in use has it
  const changed = changeTwentyFiles(gitTree, paths);
  changeTwentyFiles(workspace, paths);
  sync();
  const diff = { agent: [], reference: [], agentFiles: null, gitLines: null, patchBytes: null };
  for (let i = 0; i < RUNS; i += 1) {
    const status = await timeCommand("git", ["status", "--porcelain"], { cwd: gitTree });
    diff.reference.push(status.ms);
    diff.gitLines = status.stdout.split("\n").filter((line) => line !== "").length;
    const startedAt = performance.now();
    const after = await snapshot.snapshotWorkspace({ workspace, gitDir });
    const result = await changes.diffSnapshots({ workspace, gitDir, before, after });
    diff.agent.push(performance.now() - startedAt);
    diff.agentFiles = result.changedFiles.length;
    diff.patchBytes = result.patch.length;
  }
  raw.changed_files = { ...diff, changed, initial_snapshot_ms: initialSnapshotMs };
  if (diff.agentFiles !== changed.count || diff.gitLines !== changed.count) {
    log(
      `workspace: expected ${changed.count} changed files; agent-run found ${diff.agentFiles}, git status ${diff.gitLines}`,
    );
  }
  addFigure({
    id: `changed_files_${SIZE.files}_ms`,
    label: `changed files + patch, ${SIZE.files.toLocaleString("en-US")} files, ${changed.count} changed`,
    unit: "ms",
    value: median(diff.agent),
    reference: median(diff.reference),
    referenceLabel: "git status",
    target: TARGETS.changedFiles,
    note: `agent-run found ${diff.agentFiles} changed files (patch ${fmt(diff.patchBytes / 1024, 1)} KB), git status ${diff.gitLines}; timed: the snapshot after the run + the diff; runs: ${diff.agent.map((ms) => fmt(ms, 0)).join(", ")} ms; git status ${diff.reference.map((ms) => fmt(ms, 0)).join(", ")} ms`,
  });
  addFigure({
    id: `initial_snapshot_${SIZE.files}_ms`,
    label: "  snapshot of the fresh copy, before the run",
    unit: "ms",
    value: initialSnapshotMs,
    reference: null,
    target: null,
  });
});

await mock.close();
const totalSeconds = (performance.now() - benchStartedAt) / 1000;
try {
  machine.busy_during_bench = busyShare(cpuAtStart, cpuTimes());
  machine.load_at_end = loadavg()[0];
} catch {
  // no /proc/stat
}

// ---------------------------------------------------------------------------------------------
// Output

function show(figure, value) {
  if (value === null || value === undefined || Number.isNaN(value)) return "—";
  if (figure.percent) return `${fmt(value * 100, 1)}%`;
  return `${fmt(value, figure.digits ?? 1)}${figure.unit === "×" ? "" : " "}${figure.unit}`;
}

const rows = figures.map((figure) => [
  figure.label,
  figure.error ? "ERROR" : show(figure, figure.value),
  figure.reference === null || figure.reference === undefined
    ? "—"
    : `${show(figure, figure.reference)}${figure.referenceLabel ? ` (${figure.referenceLabel})` : ""}`,
  figure.ratio === null ? "—" : `${fmt(figure.ratio, 2)}×`,
  figure.target ? figure.target.text : "",
  figure.pass === null ? "" : figure.pass ? "PASS" : "FAIL",
]);
const table = markdownTable(
  ["figure", "agent-run", "reference", "ratio", "target", "result"],
  rows,
  ["l", "r", "r", "r", "l", "l"],
);
const checked = figures.filter((figure) => figure.pass !== null);
const passed = checked.filter((figure) => figure.pass).length;
let cpuModel = "unknown";
try {
  cpuModel =
    /model name\s*:\s*(.*)/.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? cpus()[0]?.model;
} catch {
  cpuModel = cpus()[0]?.model ?? "unknown";
}
let commit = null;
try {
  commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "ignore"],
  })
    .toString()
    .trim();
} catch {
  // not a git checkout
}
const meta = {
  date: new Date().toISOString(),
  node: process.version,
  cpu: cpuModel,
  cpus: cpus().length,
  platform: `${process.platform} ${process.arch}`,
  agent_run_version: JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version,
  commit,
  quick: QUICK,
  runs: RUNS,
  sizes: SIZE,
  duration_s: round(totalSeconds, 1),
  machine_load: {
    cpu_busy_before_start: round(machine.busy_before_start, 3),
    load_average_before_start: round(machine.load_before_start, 2),
    cpu_busy_during_bench: round(machine.busy_during_bench, 3),
    load_average_at_end: round(machine.load_at_end, 2),
  },
};
writeFileSync(
  RESULTS,
  `${JSON.stringify(
    {
      meta,
      figures: figures.map((figure) => ({
        id: figure.id,
        label: figure.label.trim(),
        unit: figure.percent ? "fraction" : figure.unit,
        value: round(figure.value, 4),
        reference: round(figure.reference, 4),
        reference_kind:
          figure.referenceLabel ?? (figure.reference === null ? null : "reference loop"),
        ratio: round(figure.ratio, 4),
        target: figure.target ? { kind: figure.target.kind, limit: figure.target.limit } : null,
        pass: figure.pass,
        note: figure.note ?? null,
        error: figure.error ?? null,
      })),
      errors,
      raw,
    },
    null,
    2,
  )}\n`,
);

process.stdout.write(
  `\nagent-run bench (${QUICK ? "quick" : "full"}): node ${process.version}, ${cpuModel}, ${cpus().length} CPUs, ${meta.date}\n\n${table}\n\n`,
);
for (const figure of figures.filter((f) => f.note)) {
  process.stdout.write(`- ${figure.label.trim()}: ${figure.note}\n`);
}
for (const [id, message] of Object.entries(errors)) {
  process.stdout.write(`- ${id} FAILED: ${message.split("\n")[0]}\n`);
}
process.stdout.write(
  `\nmachine: ${fmt((machine.busy_before_start ?? Number.NaN) * 100, 0)}% CPU busy before the start (other processes), load average ${fmt(machine.load_before_start ?? Number.NaN, 2)} → ${fmt(machine.load_at_end ?? Number.NaN, 2)}\n${passed}/${checked.length} targets met; ${Object.keys(errors).length} measurement(s) failed; ${fmt(totalSeconds, 0)} s; results in bench/results.json\n`,
);
if (flags.keep) process.stdout.write(`temporary folder kept: ${tmp}\n`);
cleanupAndExit(Object.keys(errors).length > 0 ? 1 : 0);
