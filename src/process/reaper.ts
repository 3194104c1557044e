import { hasErrorCode } from "../errors.js";
import { type Listener, startListener } from "./run-process.js";

// agent-run kills a command's process group when the command ends, times out or is cancelled. If
// agent-run itself dies without cleaning up (kill -9, the OOM killer), something must still do it:
// the reaper, one small shell per agent-run process, in a session of its own (so a signal to
// agent-run's group or terminal does not reach it) and deaf to the usual signals. It reads
// "+PGID" when a command starts and "-PGID" once its group is killed, and kills every group it
// still holds when its stdin reaches end-of-file, which happens when agent-run is gone, however it
// died. Groups are removed as soon as they are killed, so an id reused later is never hit.

/**
 * The reaper itself (POSIX sh, dash included). `groups` is " 12 34 ", each id between spaces;
 * removal cuts the first " id " out.
 */
const REAPER_SCRIPT = `trap '' HUP INT TERM QUIT PIPE
groups=' '
while IFS= read -r line; do
  case $line in
    +*) groups="$groups\${line#+} " ;;
    -*) id=\${line#-}
        case $groups in *" $id "*) groups="\${groups%% $id *} \${groups#* $id }" ;; esac ;;
  esac
done
for id in $groups; do kill -s KILL -- "-$id" 2>/dev/null; done
`;

let reaper: Listener | undefined;
/** Groups of commands still running, sent again to a reaper started after one died. */
const tracked = new Set<number>();

/** Hands the process group `pgid` (a command's, led by its shell) to the reaper. */
export function trackGroup(pgid: number): void {
  tracked.add(pgid);
  send(`+${pgid}`);
}

/** Takes the group back once it has been killed, before its id can be reused. */
export function untrackGroup(pgid: number): void {
  if (!tracked.delete(pgid)) return;
  send(`-${pgid}`);
}

function send(line: string): void {
  if (reaper?.write(line) === true) return;
  // No reaper yet, or it died (someone killed it): a new one gets every group still running.
  reaper = startReaper();
  for (const pgid of tracked) reaper.write(`+${pgid}`);
}

function startReaper(): Listener {
  return startListener("/bin/sh", ["-c", REAPER_SCRIPT], { PATH: "/usr/bin:/bin" });
}

/**
 * SIGKILLs the process group led by `pgid` (a process started `detached`): "gone" once no process
 * is left in it, after which the id must not be used again (it may be reused by another group).
 */
export function killProcessGroup(pgid: number): "killed" | "gone" {
  try {
    process.kill(-pgid, "SIGKILL");
    return "killed";
  } catch (error) {
    // ESRCH: no process is left in the group. Anything else (EPERM) may be tried again.
    return hasErrorCode(error, "ESRCH") ? "gone" : "killed";
  }
}
