import { killProcessGroup, trackGroup, untrackGroup } from "./reaper.js";

/** How long output may keep arriving after a process exited before its pipes are closed. */
export const OUTPUT_GRACE_MS = 300;

/** The process group led by `pid`, held by the reaper until released. */
export function guardGroup(pid: number): { kill: () => void; release: () => void } {
  trackGroup(pid);
  // Once the group is empty it stays gone for us: its id may later be reused by an unrelated group.
  let isGone = false;
  return {
    kill: () => {
      if (!isGone) isGone = killProcessGroup(pid) === "gone";
    },
    release: () => {
      untrackGroup(pid);
    },
  };
}
