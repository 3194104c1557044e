import { format } from "node:util";
import { clip } from "../format.js";
import { neutraliseCommands } from "../workflow-commands.js";

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
