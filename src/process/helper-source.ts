/**
 * The spawn helper's program, run as `node -e`: a small process that starts commands for
 * agent-run and relays their output. Forking copies the calling process's page tables and makes
 * its memory copy-on-write, so a fork from agent-run (tens of MB) holds its event loop 1-2 ms and
 * costs it page faults afterwards; from this process it costs a fraction, and not on that loop.
 *
 * It is plain JavaScript in a string, so that no bundler or test transform can change it (it
 * holds no backslash, backquote or `${`).
 *
 * Messages (node's IPC channel, "advanced" serialization, so output stays bytes):
 * - in:  { t: "spawn", id, file, args, cwd, env, detached, input? }, { t: "kill", id, signal },
 *        { t: "drop", id } (agent-run closed the output: close the pipes, as node would);
 * - out: { t: "ready" }, { t: "started", id, pid }, { t: "failed", id, message, code },
 *        { t: "output", id, stdout, stderr } (output so far, once 64 KB or 50 ms have gathered;
 *        after "exit", each piece as it comes),
 *        { t: "exit", id, exitCode, signal } (the process ended while its output is still open),
 *        { t: "closed", id, exitCode, signal, stdout, stderr } (ended and output closed; the rest of it).
 * It exits when agent-run does (the channel closes), and ignores the signals a terminal sends.
 */
export const HELPER_SOURCE = `"use strict";
const { spawn } = require("node:child_process");
const FLUSH_BYTES = 65536;
const FLUSH_MS = 50;
const children = new Map();
const send = (message, callback) => process.connected && process.send(message, callback);
// It lives exactly as long as agent-run: a Ctrl-C reaches the whole foreground process group, and
// agent-run, which handles it (cancelling the tasks, killing their commands), still needs it.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"]) process.on(signal, () => {});
process.on("disconnect", () => process.exit(0));
process.on("message", (message) => {
  if (message.t === "spawn") return start(message);
  const entry = children.get(message.id);
  if (entry === undefined) return;
  if (message.t === "kill") entry.child.kill(message.signal);
  else if (message.t === "drop") {
    entry.child.stdout.destroy();
    entry.child.stderr.destroy();
  }
});
function start(request) {
  const { id } = request;
  const fail = (error) => send({ t: "failed", id, message: String(error && error.message), code: error && error.code });
  let child;
  try {
    child = spawn(request.file, request.args, {
      cwd: request.cwd,
      env: request.env,
      stdio: [request.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      detached: request.detached,
    });
  } catch (error) {
    return fail(error);
  }
  if (child.pid === undefined) return void child.once("error", fail);
  child.on("error", () => {});
  const entry = { child, stdout: [], stderr: [], bytes: 0, timer: undefined, hasExited: false, isClosed: false };
  children.set(id, entry);
  send({ t: "started", id, pid: child.pid });
  const take = () => {
    const taken = { stdout: Buffer.concat(entry.stdout), stderr: Buffer.concat(entry.stderr) };
    entry.stdout = [];
    entry.stderr = [];
    entry.bytes = 0;
    return taken;
  };
  for (const name of ["stdout", "stderr"]) {
    child[name].on("error", () => {});
    child[name].on("data", (chunk) => {
      entry[name].push(chunk);
      entry.bytes += chunk.length;
      // Once the process has ended, what still comes (from a process it left behind) goes at once;
      // before, output waits until 64 KB or 50 ms have gathered (a short command's goes with "closed").
      if (entry.bytes < FLUSH_BYTES && !entry.hasExited) {
        entry.timer ??= setTimeout(() => {
          entry.timer = undefined;
          if (!entry.isClosed && entry.bytes > 0) send({ t: "output", id, ...take() });
        }, FLUSH_MS);
        return;
      }
      // Stop reading while agent-run is behind, so that a flood of output cannot pile up here.
      const resume = () => {
        child.stdout.resume();
        child.stderr.resume();
      };
      if (send({ t: "output", id, ...take() }, resume) === false && process.connected) {
        child.stdout.pause();
        child.stderr.pause();
      }
    });
  }
  if (child.stdin) {
    child.stdin.on("error", () => {});
    child.stdin.end(request.input);
  }
  child.on("exit", (exitCode, signal) => {
    // Usually the pipes close in the same turn: then one "closed" message says it all.
    setImmediate(() => {
      if (entry.isClosed) return;
      entry.hasExited = true;
      const taken = take();
      if (taken.stdout.length > 0 || taken.stderr.length > 0) send({ t: "output", id, ...taken });
      send({ t: "exit", id, exitCode, signal });
    });
  });
  child.on("close", (exitCode, signal) => {
    entry.isClosed = true;
    clearTimeout(entry.timer);
    children.delete(id);
    send({ t: "closed", id, exitCode, signal, ...take() });
  });
}
send({ t: "ready" });
`;
