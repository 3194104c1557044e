// Preloaded with `node -r` into the processes the bench measures: just before the process exits,
// writes its peak resident set size (VmHWM of /proc/self/status, in KiB) to $BENCH_HWM_FILE.
// Only the direct child of the bench writes (a forked grandchild inherits `-r` through execArgv).
const { readFileSync, writeFileSync } = require("node:fs");

const file = process.env.BENCH_HWM_FILE;
if (file && String(process.ppid) === process.env.BENCH_PARENT_PID) {
  process.on("exit", () => {
    try {
      const match = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync("/proc/self/status", "utf8"));
      if (match) writeFileSync(file, match[1]);
    } catch {
      // No /proc (not Linux): the bench falls back to its own sampling.
    }
  });
}
