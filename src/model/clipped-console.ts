import { format } from "node:util";
import { clip } from "../format.js";
import { neutraliseCommands } from "../workflow-commands.js";
import type { SdkWarning } from "./model-client.js";

/** The logger shape both SDKs take. */
type Logger = Record<"error" | "warn" | "info" | "debug", (...args: unknown[]) => void>;

/**
 * An SDK's logger: each message formatted, cut short (on data that is not JSON it logs the whole
 * event, which a broken endpoint can make megabytes long) and made unable to start a GitHub
 * workflow command (that data is the endpoint's). For Anthropic, `ANTHROPIC_LOG` sets the level.
 */
export const CLIPPED_CONSOLE: Logger = {
  error: (...args: unknown[]) => console.error(logged(args)),
  warn: (...args: unknown[]) => console.warn(logged(args)),
  info: (...args: unknown[]) => console.info(logged(args)),
  debug: (...args: unknown[]) => console.debug(logged(args)),
};

function logged(args: readonly unknown[]): string {
  return neutraliseCommands(clip(format(...args)));
}

/**
 * Runs `call` (an SDK method that warns synchronously, before its first `await`, as the Anthropic
 * SDK's `messages.create` does for a deprecated model) with `console.warn` handed to `onWarning`.
 * JavaScript runs `call` to its first `await` without interruption, so no other task's output is
 * caught. Without `onWarning`, `call` runs as it is.
 */
export function withSdkWarnings<T>(
  source: string,
  onWarning: ((warning: SdkWarning) => void) | undefined,
  call: () => T,
): T {
  if (onWarning === undefined) return call();
  const warn = console.warn;
  console.warn = (...args: unknown[]) => onWarning({ source, message: logged(args) });
  try {
    return call();
  } finally {
    console.warn = warn;
  }
}

/** An SDK's logger whose warnings and errors go to `onWarning` (the OpenAI SDK's, one per call). */
export function warningLogger(
  source: string,
  onWarning: ((warning: SdkWarning) => void) | undefined,
): Logger {
  if (onWarning === undefined) return CLIPPED_CONSOLE;
  const report = (...args: unknown[]) => onWarning({ source, message: logged(args) });
  return { ...CLIPPED_CONSOLE, error: report, warn: report };
}
