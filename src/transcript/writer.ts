import { randomUUID } from "node:crypto";
import { closeSync, ftruncateSync, openSync, writeSync } from "node:fs";
import { messageOf, TranscriptError } from "../errors.js";
import { type Redactor, redactStrings } from "../redact.js";

/**
 * Appends transcript lines to a JSONL file, each written whole with synchronous writes as it
 * happens, so a killed run leaves a readable prefix. Secret values are redacted from every line. A failed write (disk full) is cut back off,
 * so the file never ends in half a line. Adds `session_id`, `uuid` and `at` to each line.
 */
export class TranscriptWriter {
  readonly path: string;
  readonly sessionId: string;
  #fd: number | undefined;
  #bytes = 0;

  readonly #redact: Redactor;

  private constructor(path: string, fd: number, sessionId: string, redact: Redactor) {
    this.path = path;
    this.#fd = fd;
    this.sessionId = sessionId;
    this.#redact = redact;
  }

  /** Creates (or truncates) the transcript file. */
  static open(
    path: string,
    options: { sessionId?: string; redact?: Redactor } = {},
  ): TranscriptWriter {
    try {
      return new TranscriptWriter(
        path,
        openSync(path, "w"),
        options.sessionId ?? randomUUID(),
        options.redact ?? ((text) => text),
      );
    } catch (error) {
      throw new TranscriptError(`cannot write the transcript ${path}: ${messageOf(error)}`, error);
    }
  }

  /** Writes one line; a no-op after `close`. Throws `TranscriptError` when the line cannot be written. */
  write(line: Record<string, unknown>): void {
    const fd = this.#fd;
    if (fd === undefined) return;
    const stamped = {
      ...line,
      session_id: this.sessionId,
      uuid: randomUUID(),
      at: new Date().toISOString(),
    };
    // Strings redacted first: a value quoted inside a string (a check message) is escaped twice.
    const text = this.#redact(JSON.stringify(redactStrings(stamped, this.#redact)));
    const bytes = Buffer.from(`${text}\n`, "utf8");
    try {
      for (let offset = 0; offset < bytes.length; ) {
        offset += writeSync(fd, bytes, offset, bytes.length - offset, this.#bytes + offset);
      }
      this.#bytes += bytes.length;
    } catch (error) {
      this.#cutBack(fd);
      throw new TranscriptError(
        `cannot write the transcript ${this.path}: ${messageOf(error)}`,
        error,
      );
    }
  }

  close(): void {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
  }

  #cutBack(fd: number): void {
    try {
      ftruncateSync(fd, this.#bytes);
    } catch {
      // Nothing more can be done; the reader reports a partial last line.
    }
  }
}
