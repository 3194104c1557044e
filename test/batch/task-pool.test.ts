import { describe, expect, test } from "vitest";
import { mapWithConcurrency } from "../../src/batch/task-pool.js";

/** A controllable item: the test finishes it by hand, and sees when it started. */
type Item = {
  name: string;
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

describe("mapWithConcurrency", () => {
  test("at most `limit` at once; the next starts when one ends; results keep the input order", async () => {
    const items = makeItems(3);
    const log: string[] = [];
    const result = mapWithConcurrency(items, 2, async (item) => {
      log.push(`start ${item.name}`);
      item.markStarted();
      const name = await item.finished;
      log.push(`end ${name}`);
      return name;
    });
    await settle();
    expect(log).toEqual(["start t0", "start t1"]);
    items[1]?.finish();
    await settle();
    expect(log.slice(2)).toEqual(["end t1", "start t2"]);
    items[0]?.finish();
    items[2]?.finish();
    expect(await result).toEqual(["t0", "t1", "t2"]);
  });

  test("after a failure no item starts; the running ones finish, then it is thrown", async () => {
    const items = makeItems(3);
    const started: string[] = [];
    const result = mapWithConcurrency(items, 2, async (item) => {
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

  test("work that throws before its first await counts as a failure like any other", async () => {
    const started: string[] = [];
    const result = mapWithConcurrency(["a", "b", "c"], 1, (item): Promise<string> => {
      started.push(item);
      if (item === "a") throw new Error("at once");
      return Promise.resolve(item);
    });
    await expect(result).rejects.toThrow("at once");
    expect(started).toEqual(["a"]);
  });
});
