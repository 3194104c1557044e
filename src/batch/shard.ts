import { ConfigError } from "../errors.js";

/** One part of a batch split across machines: `index` of `count`, from 1. */
export type Shard = { index: number; count: number };

/** Parses `--shard I/N`. */
export function parseShard(text: string): Shard {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (match === null || count < 1 || index < 1 || index > count) {
    throw new ConfigError(
      `--shard: expected I/N with 1 <= I <= N, such as 2/3, got ${JSON.stringify(text)}`,
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
