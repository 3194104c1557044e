import { startSubprocess } from "../process/start-subprocess.js";

/** How to run one short-lived command whose whole output we want. */
export type ProcessOptions = {
  /** Where it runs; the current folder when left out. */
  cwd?: string;
  /** The complete environment (nothing is inherited). */
  env: Record<string, string>;
  /** Written to stdin, which is then closed; without it stdin is /dev/null. */
  input?: string | Uint8Array;
  /** The process is killed, and the call fails, when stdout grows past this. */
  maxOutputBytes: number;
};

/** Why a command failed; `stderr` is what it printed there, `code` the spawn error's (ENOENT). */
export class ProcessError extends Error {
  constructor(
    message: string,
    readonly stderr: Buffer,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = "ProcessError";
  }
}

/**
 * Runs `command` with `args` and resolves to its stdout bytes when it exits with 0; otherwise
 * rejects with a `ProcessError`. It is `startSubprocess` with the output collected: for the many
 * small git calls of a snapshot this costs about half the CPU of execa, which does far more
 * per call (pipes, transforms, verbose logging) than plumbing needs.
 */
export function runProcess(
  command: string,
  args: readonly string[],
  options: ProcessOptions,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const subprocess = startSubprocess({
      file: command,
      args,
      cwd: options.cwd,
      env: options.env,
      input: options.input,
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let stdoutBytes = 0;
    let failure: ProcessError | undefined;
    subprocess.stdout.on("data", (chunk: Buffer) => {
      if (failure !== undefined) return;
      stdoutBytes += chunk.length;
      if (stdoutBytes > options.maxOutputBytes) {
        failure = new ProcessError(
          `output larger than ${options.maxOutputBytes} bytes`,
          Buffer.alloc(0),
          undefined,
        );
        subprocess.kill();
        return;
      }
      stdout.push(chunk);
    });
    subprocess.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    subprocess.started.catch((error: NodeJS.ErrnoException) => {
      reject(new ProcessError(error.message, Buffer.concat(stderr), error.code));
    });
    void subprocess.closed.then(({ exitCode, signal, error }) => {
      if (error !== undefined) {
        return reject(new ProcessError(error.message, Buffer.concat(stderr), undefined));
      }
      if (failure === undefined && exitCode === 0) return resolve(Buffer.concat(stdout));
      const reason = signal === null ? `exit code ${exitCode}` : `signal ${signal}`;
      reject(failure ?? new ProcessError(reason, Buffer.concat(stderr), undefined));
    });
  });
}
