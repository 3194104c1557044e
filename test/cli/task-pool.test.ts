import { describe, expect, test } from "vitest";
import { mapWithConcurrency, type Slot } from "../../src/cli/task-pool.js";

/** A controllable item: the test frees and finishes it by hand, and sees when it started. */
type Item = {
  name: string;
  slot?: Slot;
  started: Promise<void>;
  markStarted: () => void;
  finish: () => void;
  finished: Promise<string>;
};

function makeItems(count: number): Item[] {
  return Array.from({ length: count }, (_, index) => {
    let markStarted = () => {};
    let finish = () => {};
    const name = `t${index}`;
    const started = new Promise<void>((resolve) => {
      markStarted = resolve;
    });
    const finished = new Promise<string>((resolve) => {
      finish = () => resolve(name);
    });
    return { name, started, markStarted, finish, finished };
  });
}

/** Lets every pending promise callback run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

function run(items: Item[], pool: { limit: number; isOverlapping: boolean }) {
  const log: string[] = [];
  const result = mapWithConcurrency(items, pool, async (item, slot) => {
    item.slot = slot;
    log.push(`start ${item.name} lane ${slot.lane} turn ${slot.turn}`);
    item.markStarted();
    const name = await item.finished;
    log.push(`end ${name}`);
    return name;
  });
  return { log, result };
}

describe("mapWithConcurrency", () => {
  test("one at a time per lane unless overlapping; results keep the input order", async () => {
    const items = makeItems(3);
    const { log, result } = run(items, { limit: 2, isOverlapping: false });
    await settle();
    expect(log).toEqual(["start t0 lane 0 turn 0", "start t1 lane 1 turn 0"]);
    items[0]?.slot?.free(); // ignored: not overlapping
    await settle();
    expect(log).toHaveLength(2);
    items[1]?.finish();
    await settle();
    expect(log.slice(2)).toEqual(["end t1", "start t2 lane 1 turn 1"]);
    items[0]?.finish();
    items[2]?.finish();
    expect(await result).toEqual(["t0", "t1", "t2"]);
  });

  test("a freed item lets its lane start the next one, and the next but one waits for it", async () => {
    const items = makeItems(3);
    const { log, result } = run(items, { limit: 1, isOverlapping: true });
    await settle();
    items[0]?.slot?.free();
    await items[1]?.started;
    expect(log).toEqual(["start t0 lane 0 turn 0", "start t1 lane 0 turn 1"]);
    // t1 frees its place too, but t2 would share t0's turn parity (its git dir): it waits for t0.
    items[1]?.slot?.free();
    await settle();
    expect(log).toHaveLength(2);
    items[0]?.finish();
    await items[2]?.started;
    expect(log.slice(2)).toEqual(["end t0", "start t2 lane 0 turn 2"]);
    items[1]?.finish();
    items[2]?.finish();
    expect(await result).toEqual(["t0", "t1", "t2"]);
  });

  test("after a failure no item starts; the running ones finish, then it is thrown", async () => {
    const items = makeItems(3);
    const started: string[] = [];
    const result = mapWithConcurrency(items, { limit: 2, isOverlapping: true }, async (item) => {
      started.push(item.name);
      if (item.name === "t0") throw new Error("boom");
      return item.finished;
    });
    await settle();
    expect(started).toEqual(["t0", "t1"]);
    let isSettled = false;
    void result
      .catch(() => {})
      .finally(() => {
        isSettled = true;
      });
    await settle();
    expect(isSettled).toBe(false);
    items[1]?.finish();
    await expect(result).rejects.toThrow("boom");
    expect(started).toEqual(["t0", "t1"]);
  });

  test("a failure after an item freed its place still stops the lane, once both are done", async () => {
    const items = makeItems(3);
    const started: string[] = [];
    const result = mapWithConcurrency(
      items,
      { limit: 1, isOverlapping: true },
      async (item, slot) => {
        started.push(item.name);
        if (item.name === "t0") {
          slot.free();
          await items[1]?.started;
          throw new Error("closing failed");
        }
        item.markStarted();
        return item.finished;
      },
    );
    await items[1]?.started;
    items[1]?.finish();
    await expect(result).rejects.toThrow("closing failed");
    expect(started).toEqual(["t0", "t1"]);
  });

  test("work that throws before its first await counts as a failure like any other", async () => {
    const started: string[] = [];
    const result = mapWithConcurrency(
      ["a", "b", "c"],
      { limit: 1, isOverlapping: false },
      (item): Promise<string> => {
        started.push(item);
        if (item === "a") throw new Error("at once");
        return Promise.resolve(item);
      },
    );
    await expect(result).rejects.toThrow("at once");
    expect(started).toEqual(["a"]);
  });
});
