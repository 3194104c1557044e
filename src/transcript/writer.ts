import { randomUUID } from "node:crypto";
import { closeSync, openSync, writeSync } from "node:fs";
import { TranscriptError } from "../errors.js";

/**
 * Appends transcript lines to a JSONL file, each written whole with one synchronous write as it
 * happens, so a killed run leaves a readable prefix. Adds `session_id`, `uuid` and `at` to each line.
 */
export class TranscriptWriter {
  readonly path: string;
  readonly sessionId: string;
  #fd: number | undefined;

  private constructor(path: string, fd: number, sessionId: string) {
    this.path = path;
    this.#fd = fd;
    this.sessionId = sessionId;
  }

  /** Creates (or truncates) the transcript file. */
  static open(path: string, sessionId: string = randomUUID()): TranscriptWriter {
    try {
      return new TranscriptWriter(path, openSync(path, "w"), sessionId);
    } catch (error) {
      throw new TranscriptError(
        `cannot write the transcript ${path}: ${(error as Error).message}`,
        error,
      );
    }
  }

  get isOpen(): boolean {
    return this.#fd !== undefined;
  }

  /** Writes one line; a no-op after `close`. */
  write(line: Record<string, unknown>): void {
    if (this.#fd === undefined) return;
    const stamped = {
      ...line,
      session_id: this.sessionId,
      uuid: randomUUID(),
      at: new Date().toISOString(),
    };
    const text = `${JSON.stringify(stamped)}\n`;
    try {
      writeSync(this.#fd, text);
    } catch (error) {
      throw new TranscriptError(
        `cannot write the transcript ${this.path}: ${(error as Error).message}`,
        error,
      );
    }
  }

  close(): void {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
  }
}
