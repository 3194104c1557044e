import {
  appendFileSync,
  closeSync,
  existsSync,
  openSync,
  renameSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { TranscriptError } from "../../src/errors.js";
import { TranscriptWriter } from "../../src/transcript/writer.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "agent-run-writer-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function thrown(act: () => void): unknown {
  try {
    act();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("TranscriptWriter", () => {
  test("stamps each line with the session id, its own uuid and the time of writing", async () => {
    const file = join(dir, "transcript.jsonl");
    const before = new Date().toISOString();
    const writer = TranscriptWriter.open(file, { sessionId: "session-1" });
    writer.write({ type: "system", subtype: "init" });
    writer.write({ type: "assistant", step: 1 });
    writer.close();
    const after = new Date().toISOString();

    const lines = (await readFile(file, "utf8"))
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { uuid: string; at: string });
    expect(lines).toEqual([
      {
        type: "system",
        subtype: "init",
        session_id: "session-1",
        uuid: expect.stringMatching(UUID),
        at: expect.any(String),
      },
      {
        type: "assistant",
        step: 1,
        session_id: "session-1",
        uuid: expect.stringMatching(UUID),
        at: expect.any(String),
      },
    ]);
    expect(lines[0]?.uuid).not.toBe(lines[1]?.uuid);
    for (const line of lines) {
      expect(new Date(line.at).toISOString()).toBe(line.at);
      expect(line.at >= before && line.at <= after).toBe(true);
    }
  });

  test("without a session id it makes up a UUID, the same on every line", async () => {
    const file = join(dir, "transcript.jsonl");
    const writer = TranscriptWriter.open(file);
    writer.write({ type: "a" });
    writer.write({ type: "b" });
    writer.close();

    const ids = (await readFile(file, "utf8"))
      .trimEnd()
      .split("\n")
      .map((line) => (JSON.parse(line) as { session_id: string }).session_id);
    expect(writer.sessionId).toMatch(UUID);
    expect(ids).toEqual([writer.sessionId, writer.sessionId]);
  });

  test("each write lands at once as one whole line; open truncates an old file", async () => {
    const file = join(dir, "transcript.jsonl");
    await writeFile(file, "old run\n");
    const writer = TranscriptWriter.open(file, { sessionId: "s" });

    const seen: string[] = [];
    for (const step of [1, 2, 3]) {
      writer.write({ type: "assistant", step, text: "multi\nline" });
      seen.push(await readFile(file, "utf8"));
    }
    writer.close();

    expect(seen.map((content) => content.split("\n").length - 1)).toEqual([1, 2, 3]);
    for (const content of seen) expect(content.endsWith("}\n")).toBe(true);
    expect(seen[2]).not.toContain("old run");
  });

  test("after close, write is a no-op and close can be called again", async () => {
    const file = join(dir, "transcript.jsonl");
    const writer = TranscriptWriter.open(file, { sessionId: "s" });
    writer.write({ type: "a" });
    writer.close();
    const closed = await readFile(file, "utf8");

    writer.write({ type: "b" });
    writer.close();

    expect(await readFile(file, "utf8")).toBe(closed);
  });

  test("open in a folder that does not exist throws a TranscriptError naming the path", () => {
    const file = join(dir, "missing", "transcript.jsonl");

    const error = thrown(() => TranscriptWriter.open(file));

    expect(error).toBeInstanceOf(TranscriptError);
    expect((error as TranscriptError).message).toMatch(
      /^cannot write the transcript .*\/missing\/transcript\.jsonl: ENOENT/,
    );
  });

  test.skipIf(process.platform !== "linux" || !existsSync("/dev/full"))(
    "a failing write (/dev/full: ENOSPC) throws a TranscriptError naming the path",
    () => {
      const writer = TranscriptWriter.open("/dev/full", { sessionId: "s" });

      const error = thrown(() => writer.write({ type: "system", subtype: "init" }));
      writer.close();

      expect(error).toBeInstanceOf(TranscriptError);
      expect(error).toMatchObject({
        code: "transcript",
        exitCode: 2,
        message: expect.stringMatching(/^cannot write the transcript \/dev\/full: ENOSPC/),
        cause: expect.objectContaining({ code: "ENOSPC" }),
      });
    },
  );

  describe("notices when someone else changes its file", () => {
    /** A writer with one line written, and what a second line then throws. */
    function tamperAfterOneLine(tamper: (file: string) => void) {
      const file = join(dir, "transcript.jsonl");
      const writer = TranscriptWriter.open(file, { sessionId: "s" });
      writer.write({ type: "system", subtype: "init" });
      tamper(file);
      const error = thrown(() => writer.write({ type: "assistant", step: 1 }));
      return { file, writer, error };
    }

    test("removed", () => {
      const { error } = tamperAfterOneLine((file) => unlinkSync(file));

      expect(error).toBeInstanceOf(TranscriptError);
      expect((error as Error).message).toMatch(
        /^the transcript .*\/transcript\.jsonl was removed \(ENOENT.*\) during the run, so it is not agent-run's record; agent-run stopped writing it$/,
      );
    });

    test("replaced by another file (a forged transcript renamed over it)", async () => {
      const { file, writer, error } = tamperAfterOneLine((file) => {
        writeFileSync(`${file}.forged`, '{"type":"forged"}\n');
        renameSync(`${file}.forged`, file);
      });

      expect((error as Error).message).toMatch(/transcript\.jsonl was replaced by another file/);
      // It stops: later lines are not written anywhere, and each says why.
      expect(thrown(() => writer.write({ type: "result" }))).toBe(error);
      expect(thrown(() => writer.verify())).toBe(error);
      writer.close();
      expect(thrown(() => writer.write({ type: "result" }))).toBeUndefined();
      expect(await readFile(file, "utf8")).toBe('{"type":"forged"}\n');
    });

    test("truncated", () => {
      const { error } = tamperAfterOneLine((file) => truncateSync(file, 0));

      expect((error as Error).message).toMatch(
        /transcript\.jsonl was truncated \(to 0 bytes, of the \d+ agent-run wrote\)/,
      );
    });

    test("appended to", () => {
      const { error } = tamperAfterOneLine((file) => appendFileSync(file, '{"type":"x"}\n'));

      expect((error as Error).message).toMatch(
        /transcript\.jsonl was written to by another process \(\d+ bytes, of which agent-run wrote \d+\)/,
      );
    });

    test("overwritten in place at the same size", async () => {
      const file = join(dir, "transcript.jsonl");
      const writer = TranscriptWriter.open(file, { sessionId: "s" });
      writer.write({ type: "system", subtype: "init" });
      // Past the file system's timestamp granularity, so the change time moves.
      await new Promise((resolve) => setTimeout(resolve, 20));
      const fd = openSync(file, "r+");
      writeSync(fd, "X", 0);
      closeSync(fd);

      const error = thrown(() => writer.write({ type: "assistant", step: 1 }));

      expect((error as Error).message).toMatch(/transcript\.jsonl was changed by another process/);
    });

    test("verify catches a change after the last line; an untouched file passes", () => {
      const file = join(dir, "transcript.jsonl");
      const writer = TranscriptWriter.open(file, { sessionId: "s" });
      for (let step = 1; step <= 50; step++) writer.write({ type: "assistant", step });
      expect(thrown(() => writer.verify())).toBeUndefined();

      unlinkSync(file);

      expect((thrown(() => writer.verify()) as Error).message).toMatch(/was removed/);
      writer.close();
    });
  });
});
