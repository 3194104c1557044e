import { formatCount, formatDuration } from "../format.js";
import { totalTokens } from "../model/model-client.js";
import type { BatchProgress } from "./batch-progress.js";
import { createProgressReporter, describeInput } from "./progress.js";
import type { Reporter } from "./reporter.js";
import { runLabel } from "./run-folders.js";

/** What the live view shows for one running task; `tool` while a tool call runs. */
type Running = { startedAt: number; step: number; tokens: number; tool?: string | undefined };

export type LiveView = {
  /** Prints a finished log line above the live block. */
  print(line: string): void;
  start(name: string): void;
  update(name: string, step: number, tokens: number): void;
  /** The tool call the task is running (`bash: npm test`), or undefined once it ended. */
  setTool(name: string, tool: string | undefined): void;
  end(name: string): void;
  /** The batch's progress, the block's last line. */
  setStatus(text: string): void;
  /** Removes the block and stops the clock. */
  close(): void;
};

/**
 * A compact view of the running tasks (step, tokens, elapsed) kept at the bottom of a terminal,
 * redrawn in place with ANSI cursor moves; log lines scroll above it. Only for a TTY.
 */
export function createLiveView(options: {
  write: (text: string) => void;
  columns: number;
  now?: () => number;
}): LiveView {
  const now = options.now ?? Date.now;
  const running = new Map<string, Running>();
  let status: string | undefined;
  let drawn = 0;
  const clear = () => {
    if (drawn > 0) options.write(`\u001b[${drawn}F\u001b[J`);
    drawn = 0;
  };
  const draw = () => {
    // A terminal may report no width (0 columns, as `script` gives): take the usual 80 then.
    const width = options.columns > 0 ? Math.max(20, options.columns - 1) : 79;
    const lines = [...running].map(([name, task]) => {
      const tool = task.tool === undefined ? "" : `  ${task.tool}`;
      const clock = formatDuration(now() - task.startedAt);
      const line = `  ▸ ${name}  step ${task.step}  ${formatCount(task.tokens)} tokens  ${clock}${tool}`;
      return line.slice(0, width);
    });
    if (status !== undefined) lines.push(status.slice(0, width));
    if (lines.length > 0) options.write(`${lines.join("\n")}\n`);
    drawn = lines.length;
  };
  const redraw = () => {
    clear();
    draw();
  };
  const timer = setInterval(redraw, 1_000);
  timer.unref();
  return {
    print(line) {
      clear();
      options.write(`${line}\n`);
      draw();
    },
    start(name) {
      running.set(name, { startedAt: now(), step: 0, tokens: 0 });
      redraw();
    },
    update(name, step, tokens) {
      const task = running.get(name);
      if (task === undefined) return;
      task.step = step;
      task.tokens = tokens;
      redraw();
    },
    setTool(name, tool) {
      const task = running.get(name);
      if (task === undefined) return;
      task.tool = tool;
      redraw();
    },
    end(name) {
      running.delete(name);
      redraw();
    },
    setStatus(text) {
      status = text;
      redraw();
    },
    close() {
      clearInterval(timer);
      clear();
    },
  };
}

/**
 * On a terminal: the progress lines, with a live block of the running tasks kept under them and,
 * given `progress`, the batch's progress as its last line, updated as tasks start and end.
 */
export function createLiveReporter(options: {
  writeRaw: (text: string) => void;
  columns: number;
  isVerbose: boolean;
  progress?: BatchProgress;
}): Required<Reporter> {
  const live = createLiveView({ write: options.writeRaw, columns: options.columns });
  const batch = options.progress;
  const progress = createProgressReporter({
    write: (line) => live.print(line),
    isColor: true,
    isVerbose: options.isVerbose,
  });
  const tokens = new Map<string, number>();
  return {
    onTaskStart(name, detail) {
      progress.onTaskStart(name, detail);
      batch?.taskStarted(name);
      live.start(name);
      if (batch !== undefined) live.setStatus(batch.line());
    },
    onEvent(name, event) {
      progress.onEvent(name, event);
      if (event.type === "tool_start") {
        live.setTool(name, `${event.toolName}: ${describeInput(event.toolName, event.input)}`);
      }
      if (event.type === "tool_result") live.setTool(name, undefined);
      if (event.type !== "model_reply") return;
      const total = (tokens.get(name) ?? 0) + totalTokens(event.reply.usage);
      tokens.set(name, total);
      // A subagent's reply counts for the step of the task call that started it.
      live.update(name, event.subagent?.rootStep ?? event.step, total);
    },
    onCheck: progress.onCheck,
    onTaskRetry: progress.onTaskRetry,
    onTaskEnd(summary) {
      live.end(runLabel(summary));
      progress.onTaskEnd(summary);
      batch?.taskEnded(summary);
      if (batch !== undefined) live.setStatus(batch.line());
    },
    async onBatchEnd() {
      live.close();
    },
  };
}
