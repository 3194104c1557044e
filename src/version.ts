import { readFileSync } from "node:fs";

/** agent-run's own version, from package.json (one level above both src/ and dist/). */
export const AGENT_RUN_VERSION: string = readVersion();

function readVersion(): string {
  const text = readFileSync(new URL("../package.json", import.meta.url), "utf8");
  const parsed: unknown = JSON.parse(text);
  return typeof parsed === "object" &&
    parsed !== null &&
    "version" in parsed &&
    typeof parsed.version === "string"
    ? parsed.version
    : "0.0.0";
}
