import { autoShard, MAX_SHARD_COUNT, parseShard, type ResolvedShard } from "../batch/shard.js";
import { ConfigError } from "../errors.js";
import { positiveIntFlag, stringFlag } from "./flag-values.js";

/** `--shard I/N`, or `--shard auto` with `--shard-count` resolved from the environment. */
export function shardFlag(
  raw: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
): ResolvedShard | undefined {
  const text = stringFlag(raw.shard)?.trim();
  const count = positiveIntFlag("--shard-count", raw["shard-count"], MAX_SHARD_COUNT);
  if (text === "auto") return autoShard(env, count);
  if (count !== undefined) {
    throw new ConfigError("--shard-count goes with --shard auto (in --shard I/N, N is the count)");
  }
  return text === undefined ? undefined : { ...parseShard(text), from: undefined };
}
