import { clip } from "../format.js";

/** The logger shape both SDKs take. */
type Logger = Record<"error" | "warn" | "info" | "debug", (...args: unknown[]) => void>;

/**
 * An SDK's logger, each string cut short: on data that is not JSON it logs the whole event, which
 * a broken endpoint can make megabytes long. For Anthropic, `ANTHROPIC_LOG` still sets the level.
 */
export const CLIPPED_CONSOLE: Logger = {
  error: (...args: unknown[]) => console.error(...args.map(clipLogged)),
  warn: (...args: unknown[]) => console.warn(...args.map(clipLogged)),
  info: (...args: unknown[]) => console.info(...args.map(clipLogged)),
  debug: (...args: unknown[]) => console.debug(...args.map(clipLogged)),
};

function clipLogged(value: unknown): unknown {
  if (typeof value === "string") return clip(value);
  return Array.isArray(value)
    ? value.map((item) => (typeof item === "string" ? clip(item) : item))
    : value;
}
