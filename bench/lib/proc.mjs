// Spawning the measured processes: launch time, exit time, peak RSS, output; and cleanup.

import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

const PRELOAD = fileURLToPath(new URL("./hwm-preload.cjs", import.meta.url));
const live = new Set();

/** Kills every child still running (SIGKILL to its process group). */
export function killAll() {
  for (const child of live) {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
    }
  }
  live.clear();
}

/**
 * The environment of the measured processes: no real credentials, the mock as the API (its
 * Messages API as ANTHROPIC_BASE_URL, its chat completions as OPENAI_BASE_URL, which only the
 * reference loop reads: an `openai` task names its base URL).
 */
export function childEnv(mockUrl, extra = {}) {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (
      /^(ANTHROPIC_|OPENAI_|AGENT_RUN_|GITHUB_)/.test(key) ||
      key === "CI" ||
      key === "NODE_OPTIONS"
    ) {
      continue;
    }
    env[key] = value;
  }
  return {
    ...env,
    ...(mockUrl === undefined
      ? {}
      : { ANTHROPIC_BASE_URL: mockUrl, OPENAI_BASE_URL: `${mockUrl}/v1` }),
    ANTHROPIC_API_KEY: "sk-ant-bench-not-a-real-key",
    OPENAI_API_KEY: "sk-bench-not-a-real-key",
    NO_COLOR: "1",
    ...extra,
  };
}

function readStatus(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const hwm = /VmHWM:\s+(\d+)/.exec(status);
    const rss = /VmRSS:\s+(\d+)/.exec(status);
    return { hwmKb: hwm ? Number(hwm[1]) : null, rssKb: rss ? Number(rss[1]) : null };
  } catch {
    return null;
  }
}

/**
 * Runs `node <args>` and measures it. `launchedAt` is taken just before spawn, `exitedAt` at the
 * 'exit' event (both performance.now() of this process, the mock's clock too).
 * Options: env, cwd, memory (preload the VmHWM-at-exit hook and sample /proc every `sampleMs`),
 * onSample(sample) for each sample, timeoutMs (kill after).
 */
export function runNode(args, options = {}) {
  const hwmFile =
    options.memory && options.tmpDir
      ? join(options.tmpDir, `hwm-${process.pid}-${Math.random().toString(36).slice(2)}`)
      : null;
  const nodeArgs = hwmFile ? ["-r", PRELOAD, ...args] : args;
  const env = {
    ...(options.env ?? process.env),
    ...(hwmFile ? { BENCH_HWM_FILE: hwmFile, BENCH_PARENT_PID: String(process.pid) } : {}),
  };
  return new Promise((resolve, reject) => {
    const launchedAt = performance.now();
    const child = spawn(process.execPath, nodeArgs, {
      cwd: options.cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    live.add(child);
    const stdout = [];
    const stderr = [];
    let stdoutBytes = 0;
    let stderrBytes = 0;
    const keep = 2_000_000;
    child.stdout.on("data", (chunk) => {
      if (stdoutBytes < keep) stdout.push(chunk);
      stdoutBytes += chunk.length;
    });
    child.stderr.on("data", (chunk) => {
      if (stderrBytes < keep) stderr.push(chunk);
      stderrBytes += chunk.length;
    });
    let sampledHwmKb = 0;
    let sampledRssKb = 0;
    let sampler = null;
    if (options.memory) {
      const sample = () => {
        const status = readStatus(child.pid);
        if (status === null) return;
        if (status.hwmKb !== null) sampledHwmKb = Math.max(sampledHwmKb, status.hwmKb);
        if (status.rssKb !== null) sampledRssKb = Math.max(sampledRssKb, status.rssKb);
        options.onSample?.({ at: performance.now() - launchedAt, ...status });
      };
      sampler = setInterval(sample, options.sampleMs ?? 10);
    }
    const timer =
      options.timeoutMs === undefined
        ? null
        : setTimeout(() => {
            try {
              process.kill(-child.pid, "SIGKILL");
            } catch {
              child.kill("SIGKILL");
            }
          }, options.timeoutMs);
    let exitedAt = null;
    let code = null;
    let signal = null;
    child.on("exit", (exitCode, exitSignal) => {
      exitedAt = performance.now();
      code = exitCode;
      signal = exitSignal;
      if (sampler) clearInterval(sampler);
    });
    child.on("error", (error) => {
      live.delete(child);
      if (sampler) clearInterval(sampler);
      if (timer) clearTimeout(timer);
      reject(error);
    });
    child.on("close", () => {
      live.delete(child);
      if (timer) clearTimeout(timer);
      let exitHwmKb = null;
      if (hwmFile && existsSync(hwmFile)) {
        exitHwmKb = Number(readFileSync(hwmFile, "utf8").trim()) || null;
        rmSync(hwmFile, { force: true });
      }
      const ownPeakKb = exitHwmKb ?? (sampledHwmKb || sampledRssKb || null);
      resolve({
        launchedAt,
        exitedAt: exitedAt ?? performance.now(),
        wallMs: (exitedAt ?? performance.now()) - launchedAt,
        code,
        signal,
        stdout: Buffer.concat(stdout).toString("utf8"),
        stderr: Buffer.concat(stderr).toString("utf8"),
        // VmHWM read by the process itself at exit, else the highest VmHWM sampled.
        peakRssKb: ownPeakKb,
        peakRssSource: exitHwmKb !== null ? "VmHWM at exit" : "sampled /proc every 10 ms",
        sampledHwmKb: sampledHwmKb || null,
      });
    });
  });
}

/** Runs a command (no shell) and times it; rejects on a non-zero exit. */
export function timeCommand(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const startedAt = performance.now();
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    live.add(child);
    const out = [];
    const err = [];
    child.stdout.on("data", (chunk) => out.push(chunk));
    child.stderr.on("data", (chunk) => err.push(chunk));
    child.on("error", (error) => {
      live.delete(child);
      reject(error);
    });
    child.on("close", (code) => {
      live.delete(child);
      const ms = performance.now() - startedAt;
      const stdout = Buffer.concat(out).toString("utf8");
      if (code !== 0) {
        reject(new Error(`${command} ${args.join(" ")} exited ${code}: ${Buffer.concat(err)}`));
        return;
      }
      resolve({ ms, stdout });
    });
  });
}
