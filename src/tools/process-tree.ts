import type { Readable } from "node:stream";
import { guardGroup, OUTPUT_GRACE_MS } from "../process/process-group.js";

/** Said when the pipes had to be closed while something still held them open. */
export const OUTPUT_CUT_NOTE =
  "[output stream closed after the command exited; a background process still held it open]";

/**
 * Closes the output pipes shortly after the shell exits (on its own, or killed on timeout or
 * cancellation). A process that left the group (`setsid`) escapes the group kill and can hold the
 * pipes open for ever, and node's "close" event waits for them even after a timeout.
 */
export function closeOutputAfterExit(
  exited: Promise<unknown>,
  streams: readonly (Readable | null | undefined)[],
) {
  let hasCutOutput = false;
  let isStopped = false;
  let timer: NodeJS.Timeout | undefined;
  const close = () => {
    const stillOpen = streams.filter(
      (stream): stream is Readable => stream !== null && stream !== undefined && !stream.destroyed,
    );
    hasCutOutput = stillOpen.length > 0;
    // Destroyed without an error, they count as ended, and "close" comes.
    for (const stream of stillOpen) stream.destroy();
  };
  void exited.then(() => {
    if (!isStopped) timer = setTimeout(close, OUTPUT_GRACE_MS);
  });
  return {
    hasCutOutput: () => hasCutOutput,
    stop() {
      isStopped = true;
      clearTimeout(timer);
    },
  };
}

/**
 * Kills the command's whole process group on timeout and on cancellation (killing only the shell
 * would leave its children running and holding the output pipe open), and once `stop` is called.
 * Until then the reaper holds the group too, and kills it if agent-run dies first.
 */
export function guardProcessTree(pid: number, timeoutMs: number, signal: AbortSignal) {
  const group = guardGroup(pid);
  const kill = group.kill;
  let hasTimedOut = false;
  const timer = setTimeout(() => {
    hasTimedOut = true;
    kill();
  }, timeoutMs);
  signal.addEventListener("abort", kill);
  // Cancelled while the command was starting: the listener above came too late.
  if (signal.aborted) kill();
  return {
    kill,
    hasTimedOut: () => hasTimedOut,
    stop() {
      clearTimeout(timer);
      signal.removeEventListener("abort", kill);
      kill();
      group.release();
    },
  };
}
