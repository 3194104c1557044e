import { randomUUID } from "node:crypto";
import {
  type BigIntStats,
  closeSync,
  fstatSync,
  ftruncateSync,
  lstatSync,
  openSync,
  writeSync,
} from "node:fs";
import { messageOf, TranscriptError } from "../errors.js";
import { type Redactor, redactStrings } from "../redact.js";

/**
 * Appends transcript lines to a JSONL file, each written whole with synchronous writes as it
 * happens, so a killed run leaves a readable prefix. Secret values are redacted from every line. A failed write (disk full) is cut back off,
 * so the file never ends in half a line. Adds `session_id`, `uuid` and `at` to each line.
 *
 * The file is agent-run's alone: before each line (and in `verify`) the writer checks that the
 * path still names the file it opened and that nobody else changed it (its size is what it wrote,
 * its change time what its own last write left). If not, it throws a `TranscriptError` that names
 * the file and what happened, and writes nothing more: every later `write` throws it again.
 */
export class TranscriptWriter {
  readonly path: string;
  readonly sessionId: string;
  #fd: number | undefined;
  #bytes = 0;
  /** The file as agent-run last left it: identity and change time (regular files only). */
  #own: BigIntStats | undefined;
  /** Set once the file was found changed by someone else: the writer then stops. */
  #tampered: TranscriptError | undefined;

  readonly #redact: Redactor;

  private constructor(path: string, fd: number, sessionId: string, redact: Redactor) {
    this.path = path;
    this.#fd = fd;
    this.sessionId = sessionId;
    this.#redact = redact;
    this.#own = fstatSync(fd, { bigint: true });
  }

  /** Creates (or truncates) the transcript file. */
  static open(
    path: string,
    options: { sessionId?: string; redact?: Redactor } = {},
  ): TranscriptWriter {
    let fd: number | undefined;
    try {
      fd = openSync(path, "w");
      return new TranscriptWriter(
        path,
        fd,
        options.sessionId ?? randomUUID(),
        options.redact ?? ((text) => text),
      );
    } catch (error) {
      if (fd !== undefined) closeSync(fd);
      throw new TranscriptError(`cannot write the transcript ${path}: ${messageOf(error)}`, error);
    }
  }

  /**
   * Writes one line; a no-op after `close`. Throws `TranscriptError` when the line cannot be
   * written, or the file is no longer agent-run's (then for every later line too).
   */
  write(line: Record<string, unknown>): void {
    const fd = this.#fd;
    if (fd === undefined) return;
    this.verify();
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
    } finally {
      this.#noteOwnState(fd);
    }
  }

  /**
   * Throws `TranscriptError` when the file at `path` is no longer the one this writer wrote:
   * removed, replaced, truncated, or written to by another process. A no-op after `close`.
   */
  verify(): void {
    const fd = this.#fd;
    if (fd === undefined) return;
    if (this.#tampered !== undefined) throw this.#tampered;
    const problem = this.#findTampering(fd);
    if (problem === undefined) return;
    this.#tampered = new TranscriptError(
      `the transcript ${this.path} ${problem} during the run, so it is not agent-run's record; agent-run stopped writing it`,
    );
    throw this.#tampered;
  }

  close(): void {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
  }

  #findTampering(fd: number): string | undefined {
    let atPath: BigIntStats;
    try {
      atPath = lstatSync(this.path, { bigint: true });
    } catch (error) {
      return `was removed (${messageOf(error)})`;
    }
    const own = fstatSync(fd, { bigint: true });
    if (atPath.dev !== own.dev || atPath.ino !== own.ino) return "was replaced by another file";
    if (!own.isFile()) return undefined; // a device (tests write to /dev/full): no size to check
    const size = Number(own.size);
    if (size < this.#bytes) {
      return `was truncated (to ${size} bytes, of the ${this.#bytes} agent-run wrote)`;
    }
    if (size > this.#bytes) {
      return `was written to by another process (${size} bytes, of which agent-run wrote ${this.#bytes})`;
    }
    if (this.#own !== undefined && own.ctimeNs !== this.#own.ctimeNs) {
      return "was changed by another process";
    }
    return undefined;
  }

  /** Remembers the file's change time after agent-run's own write (or cut-back). */
  #noteOwnState(fd: number): void {
    try {
      this.#own = fstatSync(fd, { bigint: true });
    } catch {
      this.#own = undefined;
    }
  }

  #cutBack(fd: number): void {
    try {
      ftruncateSync(fd, this.#bytes);
    } catch {
      // Nothing more can be done; the reader reports a partial last line.
    }
  }
}
