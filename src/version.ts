import { readFileSync } from "node:fs";

/** agent-run's own version, from its package.json (above src/, dist/, or the bundle's chunks/). */
export const AGENT_RUN_VERSION: string = readVersion();

function readVersion(): string {
  for (const relative of ["../package.json", "../../package.json", "../../../package.json"]) {
    try {
      const parsed: unknown = JSON.parse(readFileSync(new URL(relative, import.meta.url), "utf8"));
      if (
        typeof parsed === "object" &&
        parsed !== null &&
        "name" in parsed &&
        parsed.name === "agent-run"
      ) {
        return "version" in parsed && typeof parsed.version === "string" ? parsed.version : "0.0.0";
      }
    } catch {
      // Not at this level; try the next one up.
    }
  }
  return "0.0.0";
}
