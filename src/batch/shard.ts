import { ConfigError } from "../errors.js";
import { clip } from "../format.js";

/** One part of a batch split across machines: `index` of `count`, from 1. */
export type Shard = { index: number; count: number };

/** A shard and, for `--shard auto`, the variables it came from (for the log). */
export type ResolvedShard = Shard & { from: string | undefined };

/** Most shards `--shard` and `--shard auto` accept: a count past it is a mistake. */
export const MAX_SHARD_COUNT = 1_000_000;

/** Parses `--shard I/N`. */
export function parseShard(text: string): Shard {
  const match = /^(\d{1,7})\/(\d{1,7})$/.exec(text.trim());
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (match === null || count < 1 || index < 1 || index > count || count > MAX_SHARD_COUNT) {
    throw new ConfigError(
      `--shard: expected I/N with 1 <= I <= N <= ${MAX_SHARD_COUNT.toLocaleString("en-US")}, such as 2/3, or auto, got ${clip(JSON.stringify(text), 100)}`,
    );
  }
  return { index, count };
}

/**
 * The shard's tasks: sorted by name, then every N-th from the I-th. The same I/N picks the same
 * tasks on every machine (file order and globbing don't matter), the shards are disjoint, they
 * cover the batch, and their sizes differ by at most one.
 */
export function selectShard<T extends { name: string }>(tasks: readonly T[], shard: Shard): T[] {
  const sorted = [...tasks].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return sorted.filter((_, position) => position % shard.count === shard.index - 1);
}

/** The count `--shard auto` takes for `JOB_COMPLETION_INDEX` when `--shard-count` is not given. */
export const SHARD_COUNT_VARIABLE = "AGENT_RUN_SHARD_COUNT";

/**
 * The systems `--shard auto` reads, in this order: each one's index variable (counting from 0)
 * and count variable. Kubernetes exports no count: the Job's manifest sets `AGENT_RUN_SHARD_COUNT`
 * (its `completions`), or the command line passes `--shard-count`.
 */
const SHARD_SOURCES = [
  {
    system: "a Kubernetes Indexed Job",
    index: "JOB_COMPLETION_INDEX",
    count: SHARD_COUNT_VARIABLE,
  },
  { system: "Buildkite", index: "BUILDKITE_PARALLEL_JOB", count: "BUILDKITE_PARALLEL_JOB_COUNT" },
  { system: "CircleCI", index: "CIRCLE_NODE_INDEX", count: "CIRCLE_NODE_TOTAL" },
] as const;

type ShardSource = (typeof SHARD_SOURCES)[number];

type Env = Readonly<Record<string, string | undefined>>;

/**
 * `--shard auto`: the part the environment gives (see `SHARD_SOURCES`), as the same `I/N` that
 * `--shard I/N` takes, so index 0 of 3 runs what `--shard 1/3` runs. `countFlag` is
 * `--shard-count`: for Kubernetes it wins over `AGENT_RUN_SHARD_COUNT`; for the other systems
 * it must agree with their own count.
 * @throws ConfigError naming the variables when none is set, or a value is not a whole number
 * or out of range.
 */
export function autoShard(env: Env, countFlag: number | undefined): ResolvedShard {
  const source = SHARD_SOURCES.find((candidate) => isSet(env[candidate.index]));
  if (source === undefined) {
    const names = SHARD_SOURCES.map((each) => `${each.index} (${each.system})`).join(", ");
    throw new ConfigError(
      `--shard auto: no shard index in the environment; expected one of ${names}, or give --shard I/N`,
    );
  }
  const index = wholeNumber(source.index, env[source.index], 0);
  const count = shardCount(source, env, countFlag);
  if (index >= count.value) {
    throw new ConfigError(
      `--shard auto: ${source.index}=${index} is out of range for ${count.value} shards (${count.from}); the index counts from 0 to ${count.value - 1}`,
    );
  }
  return { index: index + 1, count: count.value, from: `${source.index}=${index}, ${count.from}` };
}

/** The shard count for `source`, and where it came from (`AGENT_RUN_SHARD_COUNT=3`). */
function shardCount(
  source: ShardSource,
  env: Env,
  countFlag: number | undefined,
): { value: number; from: string } {
  const fromFlag =
    countFlag === undefined ? undefined : { value: countFlag, from: `--shard-count ${countFlag}` };
  if (source.count === SHARD_COUNT_VARIABLE) {
    const count = fromFlag ?? explicitCount(env);
    if (count === undefined) {
      throw new ConfigError(
        `--shard auto: ${source.index} is set, but Kubernetes does not export the shard count; set ${SHARD_COUNT_VARIABLE} to the Job's completions in its manifest, or pass --shard-count N`,
      );
    }
    return count;
  }
  const own = env[source.count];
  if (!isSet(own)) {
    throw new ConfigError(`--shard auto: ${source.index} is set but ${source.count} is not`);
  }
  const value = wholeNumber(source.count, own, 1);
  const other = fromFlag ?? explicitCount(env);
  if (other !== undefined && other.value !== value) {
    throw new ConfigError(
      `--shard auto: ${other.from} disagrees with ${source.count}=${value} (${source.system}); drop it or make them equal`,
    );
  }
  return { value, from: `${source.count}=${value}` };
}

/** `AGENT_RUN_SHARD_COUNT`, when set. */
function explicitCount(env: Env): { value: number; from: string } | undefined {
  const text = env[SHARD_COUNT_VARIABLE];
  if (!isSet(text)) return undefined;
  const value = wholeNumber(SHARD_COUNT_VARIABLE, text, 1);
  return { value, from: `${SHARD_COUNT_VARIABLE}=${value}` };
}

/** An empty variable counts as unset, as everywhere in agent-run. */
function isSet(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== "";
}

/** A variable's value as a whole number from `min` to `MAX_SHARD_COUNT`: digits only. */
function wholeNumber(name: string, text: string | undefined, min: number): number {
  const value = /^(0|[1-9][0-9]{0,6})$/.test(text ?? "") ? Number(text) : Number.NaN;
  if (!(value >= min && value <= MAX_SHARD_COUNT)) {
    throw new ConfigError(
      `--shard auto: ${name}: expected a whole number from ${min} to ${MAX_SHARD_COUNT.toLocaleString("en-US")}, got ${clip(JSON.stringify(text) ?? "nothing", 100)}`,
    );
  }
  return value;
}
