import { z } from "zod";
import { formatBytes } from "../format.js";
import { DEFAULT_SANDBOX_LIMITS } from "../tools/sandbox.js";
import { byteSize, positiveInt } from "./schema-fields.js";

/** A task's `sandbox` field: whether bash, command tools and run checks run under bubblewrap. */
export const SandboxSchema = z
  .enum(["none", "bwrap"])
  .optional()
  .describe(
    'Run each bash command, command tool call, run check and MCP server under bubblewrap ("bwrap"): the workspace writable (in place, its .git folders and the output folders are not), the rest of the file system read-only, no network, a private /tmp, bounded by sandbox_limits. Default: "none". --sandbox overrides it.',
  );

/** A task's `sandbox_limits` section: the bounds of each sandboxed command. */
export const SandboxLimitsSchema = z
  .object({
    tmp_size: byteSize(
      `Size of the private /tmp (memory), e.g. "2GiB"; writing past it fails with "No space left on device". Default: ${formatBytes(DEFAULT_SANDBOX_LIMITS.tmpBytes)}.`,
    ),
    shm_size: byteSize(
      `Size of /dev/shm (memory), e.g. "256MiB". Default: ${formatBytes(DEFAULT_SANDBOX_LIMITS.shmBytes)}.`,
    ),
    max_processes: positiveInt(
      `Most processes a command may have running at once, threads included; past it, fork fails with "Resource temporarily unavailable". Default: ${DEFAULT_SANDBOX_LIMITS.maxProcesses}.`,
      4_194_304,
    ),
    max_file_size: byteSize(
      `Largest file a command may write, anywhere; the writer is stopped with "File size limit exceeded". Default: ${formatBytes(DEFAULT_SANDBOX_LIMITS.maxFileBytes)}.`,
    ),
  })
  .strict()
  .optional()
  .describe(
    "Bounds of each sandboxed command (sandbox: bwrap, or --sandbox bwrap); sizes are binary (1M = 1MiB), or a number of bytes. Each one has a default.",
  );
