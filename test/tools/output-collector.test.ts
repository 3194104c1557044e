import { describe, expect, test } from "vitest";
import { createOutputCollector } from "../../src/tools/output-collector.js";
import { truncateMiddle } from "../../src/tools/truncate.js";

function collect(chunks: readonly string[], maxChars: number) {
  const collector = createOutputCollector(maxChars);
  for (const chunk of chunks) collector.push(chunk);
  return collector;
}

describe("createOutputCollector", () => {
  test("short output comes back whole, without its final newline", () => {
    const collector = collect(["hello ", "world\n"], 100);

    expect(collector.render(100)).toBe("hello world");
    expect(collector.totalChars()).toBe(12);
  });

  test("renders like truncateMiddle on the whole output, however it was chunked", () => {
    const text = Array.from({ length: 400 }, (_, i) => `line ${i}\n`).join("");
    const chunkings = [
      [text],
      text.match(/[\s\S]{1,7}/g) ?? [],
      text.split("\n").map((l) => `${l}\n`),
    ];

    for (const chunks of chunkings) {
      const joined = chunks.join("");
      const collector = collect(chunks, 100);

      expect(collector.render(100)).toBe(truncateMiddle(joined.replace(/\n$/, ""), 100));
      expect(collector.render(30)).toBe(truncateMiddle(joined.replace(/\n$/, ""), 30));
    }
  });

  test("keeps only the cap in memory and counts everything it dropped", () => {
    const collector = createOutputCollector(10);

    for (let i = 0; i < 100_000; i++) collector.push("0123456789");

    expect(collector.render(10)).toBe("01234\n[... 999990 characters cut ...]\n56789");
    expect(collector.render(4)).toBe("01\n[... 999996 characters cut ...]\n89");
    expect(collector.render(1_000)).toBe(collector.render(10));
  });

  test("strips a final \\r\\n too, and nothing else", () => {
    expect(collect(["a\r\n"], 10).render(10)).toBe("a");
    expect(collect(["a\n\n"], 10).render(10)).toBe("a\n");
    expect(collect(["x".repeat(50), "\r\n"], 10).render(10)).toBe(
      "xxxxx\n[... 40 characters cut ...]\nxxxxx",
    );
  });

  test("empty output renders as an empty string", () => {
    expect(collect([], 10).render(10)).toBe("");
    expect(collect(["\n"], 10).render(10)).toBe("");
  });

  test("never splits a surrogate pair at the cut", () => {
    const collector = collect(["a😀".repeat(1000)], 6);

    expect(collector.render(6)).toBe("a😀\n[... 2994 characters cut ...]\na😀");
    expect(collector.render(4)).toBe("a\n[... 2997 characters cut ...]\n😀");
    expect(collector.render(5)).toBe("a😀\n[... 2995 characters cut ...]\n😀");
  });
});
