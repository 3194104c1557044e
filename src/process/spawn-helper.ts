import { type ChildProcess, spawn } from "node:child_process";
import { availableParallelism } from "node:os";
import { Readable } from "node:stream";
import { HELPER_SOURCE } from "./helper-source.js";
import type { Exit, Subprocess, SubprocessOptions } from "./subprocess.js";

/** What the helper says (see `helper-source.ts`). */
type HelperMessage =
  | { t: "ready" }
  | { t: "started"; id: number; pid: number }
  | { t: "failed"; id: number; message: string; code?: string | undefined }
  | { t: "output"; id: number; stdout: Uint8Array; stderr: Uint8Array }
  | { t: "exit"; id: number; exitCode: number | null; signal: NodeJS.Signals | null }
  | {
      t: "closed";
      id: number;
      exitCode: number | null;
      signal: NodeJS.Signals | null;
      stdout: Uint8Array;
      stderr: Uint8Array;
    };

/** A promise with its settling functions. */
type Deferred<T> = {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: Error) => void;
};

function deferred<T>(): Deferred<T> {
  let resolve: (value: T) => void = () => {};
  let reject: (error: Error) => void = () => {};
  const promise = new Promise<T>((settle, fail) => {
    resolve = settle;
    reject = fail;
  });
  return { promise, resolve, reject };
}

/** A command the helper runs for us, until its output has closed. */
type Running = {
  stdout: Readable;
  stderr: Readable;
  detached: boolean;
  pid: number | undefined;
  hasExited: boolean;
  started: Deferred<number>;
  exited: Deferred<Exit>;
  closed: Deferred<Exit>;
};

/**
 * The agent-run side of the spawn helper: starts commands there and turns its messages back into
 * streams and promises. Owns the helper process and the commands it runs for us. Once the helper
 * is gone (it crashed or was killed), the commands it ran are killed and end with an error, and
 * `start` declines, so that callers start commands themselves.
 */
export class SpawnHelper {
  readonly #helper: ChildProcess;
  readonly #running = new Map<number, Running>();
  #nextId = 1;
  #state: "starting" | "ready" | "gone" = "starting";
  readonly #ready: Promise<boolean>;

  private constructor(helper: ChildProcess) {
    this.#helper = helper;
    let settleReady: (isReady: boolean) => void = () => {};
    this.#ready = new Promise((resolve) => {
      settleReady = resolve;
    });
    helper.on("message", (message: HelperMessage) => {
      if (message.t === "ready") {
        if (this.#state === "starting") this.#state = "ready";
        settleReady(this.#state === "ready");
      } else this.#receive(message);
    });
    const onGone = () => {
      settleReady(false);
      this.#lose();
    };
    helper.on("error", onGone);
    helper.on("exit", onGone);
    helper.on("disconnect", onGone);
    // Neither the helper nor its channel keeps agent-run alive; the channel does while commands run.
    helper.unref();
    helper.channel?.unref();
  }

  /** Starts a helper; undefined when node could not even be started. */
  static launch(): SpawnHelper | undefined {
    try {
      // A young generation of 1 MB: it holds a few messages at a time.
      const helper = spawn(process.execPath, ["--max-semi-space-size=1", "-e", HELPER_SOURCE], {
        stdio: ["ignore", "ignore", "ignore", "ipc"],
        serialization: "advanced",
        // Nothing of ours: not NODE_OPTIONS (a --require, an inspector), not the API key.
        env: {},
      });
      return new SpawnHelper(helper);
    } catch {
      return undefined;
    }
  }

  /** Settles with whether the helper is taking commands (waiting for it keeps nothing alive). */
  whenReady(): Promise<boolean> {
    return this.#ready;
  }

  get isReady(): boolean {
    return this.#state === "ready";
  }

  /** Whether it has stopped for good (crashed or killed). */
  get isGone(): boolean {
    return this.#state === "gone";
  }

  /** Commands sent to it that have not started yet: its queue, as it starts one at a time. */
  get startingCount(): number {
    let count = 0;
    for (const running of this.#running.values()) if (running.pid === undefined) count += 1;
    return count;
  }

  /** The helper's process id. */
  get pid(): number | undefined {
    return this.#helper.pid;
  }

  /** Starts a command in the helper; undefined when it is not (or no longer) taking commands. */
  start(options: SubprocessOptions): Subprocess | undefined {
    if (this.#state !== "ready") return undefined;
    const id = this.#nextId++;
    const output = () =>
      new Readable({
        read() {},
        // agent-run closed the output (a background process held it open): close the pipes too.
        destroy: (error, callback) => {
          if (this.#running.has(id)) this.#send({ t: "drop", id });
          callback(error);
        },
      });
    const running: Running = {
      stdout: output(),
      stderr: output(),
      detached: options.detached === true,
      pid: undefined,
      hasExited: false,
      started: deferred(),
      exited: deferred(),
      closed: deferred(),
    };
    running.started.promise.catch(() => {});
    this.#running.set(id, running);
    if (this.#running.size === 1) this.#helper.channel?.ref();
    this.#send({
      t: "spawn",
      id,
      file: options.file,
      args: [...options.args],
      cwd: options.cwd,
      env: options.env,
      detached: options.detached === true,
      input: typeof options.input === "string" ? Buffer.from(options.input) : options.input,
    });
    return {
      started: running.started.promise,
      stdout: running.stdout,
      stderr: running.stderr,
      exited: running.exited.promise,
      closed: running.closed.promise,
      kill: (signal) => {
        if (this.#running.has(id)) this.#send({ t: "kill", id, signal: signal ?? "SIGTERM" });
      },
    };
  }

  #send(message: object): void {
    if (this.#state === "gone") return;
    // A closed channel is reported as an "error" event, which ends the helper for us.
    this.#helper.send(message, (error) => {
      if (error !== null && error !== undefined) this.#lose();
    });
  }

  #receive(message: Exclude<HelperMessage, { t: "ready" }>): void {
    const running = this.#running.get(message.id);
    if (running === undefined) return;
    switch (message.t) {
      case "started":
        running.pid = message.pid;
        running.started.resolve(message.pid);
        return;
      case "failed": {
        const error = Object.assign(new Error(message.message), { code: message.code });
        running.started.reject(error);
        this.#finish(message.id, running, { exitCode: null, signal: null, error });
        return;
      }
      case "output":
        push(running.stdout, message.stdout);
        push(running.stderr, message.stderr);
        return;
      case "exit":
        running.hasExited = true;
        running.exited.resolve({ exitCode: message.exitCode, signal: message.signal });
        return;
      case "closed":
        push(running.stdout, message.stdout);
        push(running.stderr, message.stderr);
        this.#finish(message.id, running, { exitCode: message.exitCode, signal: message.signal });
        return;
      default:
        message satisfies never;
    }
  }

  #finish(id: number, running: Running, exit: Exit): void {
    this.#running.delete(id);
    if (this.#running.size === 0) this.#helper.channel?.unref();
    if (!running.stdout.destroyed) running.stdout.push(null);
    if (!running.stderr.destroyed) running.stderr.push(null);
    running.exited.resolve(exit);
    running.closed.resolve(exit);
  }

  /**
   * The helper is gone: what it ran can no longer be waited for, so it is killed (unless it had
   * ended: its pid may be reused) and ends with an error. A command sent but not yet started may
   * or may not have started; it is not started again, as running a command twice is worse.
   */
  #lose(): void {
    if (this.#state === "gone") return;
    this.#state = "gone";
    const error = new Error("lost track of the command: agent-run's spawn helper stopped");
    for (const [id, running] of this.#running) {
      if (running.pid !== undefined && !running.hasExited) {
        killQuietly(running.detached ? -running.pid : running.pid);
      }
      running.started.reject(error);
      this.#finish(id, running, { exitCode: null, signal: null, error });
    }
  }
}

function push(stream: Readable, bytes: Uint8Array): void {
  if (bytes.length > 0 && !stream.destroyed) {
    stream.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  }
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/** At most this many helpers: each starts one command at a time, and more than the cores cannot help. */
const MAX_HELPERS = Math.min(availableParallelism(), 4);

const helpers: SpawnHelper[] = [];
let isWanted = false;
/** `AGENT_RUN_SPAWN_HELPER`, read on the first call (this is asked for every command). */
let setting: string | undefined;

/**
 * Has commands start in spawn helpers from now on (for the rest of the process), and launches
 * the first. They pay off when
 * several tasks share this process: each fork from it holds the event loop that all of them wait
 * on. A single task starts its commands sooner itself (no round trip to a helper).
 */
export function useSpawnHelpers(): void {
  isWanted = true;
  sharedSpawnHelper();
}

/**
 * A spawn helper to start a command in, if helpers are in use (`useSpawnHelpers`, or
 * `AGENT_RUN_SPAWN_HELPER=1`; `0` switches them off): the ready one with the shortest queue.
 * The first call launches one; another is launched (up to one per core, at most 4) when a command
 * comes while every ready helper is still starting others, as in a batch whose tasks run commands
 * at the same moment. Undefined until one is ready, and when none could start.
 */
export function sharedSpawnHelper(): SpawnHelper | undefined {
  setting ??= process.env.AGENT_RUN_SPAWN_HELPER ?? "";
  if (setting === "0" || (!isWanted && setting !== "1")) return undefined;
  let best: SpawnHelper | undefined;
  for (const helper of helpers) {
    if (helper.isReady && (best === undefined || helper.startingCount < best.startingCount)) {
      best = helper;
    }
  }
  const isLaunching = helpers.some((helper) => !helper.isReady && !helper.isGone);
  const isBusy = best === undefined || best.startingCount > 0;
  // Helpers that stopped are not replaced: something is wrong, and commands can start without them.
  if (isBusy && !isLaunching && helpers.length < MAX_HELPERS) {
    const launched = SpawnHelper.launch();
    if (launched !== undefined) helpers.push(launched);
  }
  return best;
}
