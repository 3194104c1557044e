import { readFile, stat } from "node:fs/promises";
import { ToolError } from "../tools/define-tool.js";
import { errorCode, resolveWorkspacePath } from "../tools/workspace-path.js";
import { compileCheckPattern } from "./check-pattern.js";
import { failed, passed } from "./outcome.js";
import type { Check, CheckContext, CheckOutcome } from "./types.js";

type FileCheck = Extract<
  Check,
  { kind: "file_exists" | "file_absent" | "file_contains" | "file_matches" }
>;

type TextCheck = Extract<FileCheck, { kind: "file_contains" | "file_matches" }>;

/** What sits at a check's path, seen from inside the workspace. */
type Found =
  | { state: "file"; realPath: string }
  | { state: "folder" }
  | { state: "missing" }
  /** The path cannot be checked (a link out of the workspace, no permission): the check fails. */
  | { state: "unusable"; message: string };

/** Longest text shown in a message. */
const MAX_SHOWN_TEXT_CHARS = 60;

/** Evaluates a check on one workspace path; paths are confined to the workspace, links included. */
export async function evaluateFileCheck(
  check: FileCheck,
  ctx: Pick<CheckContext, "workspace">,
): Promise<CheckOutcome> {
  const found = await find(ctx.workspace, check.path);
  switch (found.state) {
    case "unusable":
      return failed(found.message);
    case "file":
      return check.kind === "file_absent"
        ? failed(`${check.path} exists`)
        : check.kind === "file_exists"
          ? passed(`${check.path} exists`)
          : testText(check, found.realPath);
    case "folder":
      return check.kind === "file_absent"
        ? failed(`${check.path} exists (a folder)`)
        : failed(`${check.path} is a folder, not a file`);
    case "missing":
      return check.kind === "file_absent"
        ? passed(`${check.path} does not exist`)
        : failed(`${check.path} does not exist`);
    default: {
      const unreachable: never = found;
      return unreachable;
    }
  }
}

async function testText(check: TextCheck, realPath: string): Promise<CheckOutcome> {
  let text: string;
  try {
    text = await readFile(realPath, "utf8");
  } catch (error) {
    return failed(`cannot read ${check.path}: ${describeFsError(error)}`);
  }
  if (check.kind === "file_contains") {
    const shown = showText(check.text);
    return text.includes(check.text)
      ? passed(`${check.path} contains ${shown}`)
      : failed(`${check.path} does not contain ${shown}`);
  }
  const regex = compileCheckPattern(check.pattern);
  return regex.test(text)
    ? passed(`${check.path} matches ${regex}`)
    : failed(`${check.path} does not match ${regex}`);
}

async function find(workspace: string, path: string): Promise<Found> {
  let realPath: string;
  try {
    realPath = await resolveWorkspacePath(workspace, path);
  } catch (error) {
    if (error instanceof ToolError) return { state: "unusable", message: error.message };
    return { state: "unusable", message: `cannot check ${path}: ${describeFsError(error)}` };
  }
  try {
    const info = await stat(realPath);
    return info.isDirectory() ? { state: "folder" } : { state: "file", realPath };
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return { state: "missing" };
    return { state: "unusable", message: `cannot check ${path}: ${describeFsError(error)}` };
  }
}

function describeFsError(error: unknown): string {
  const code = errorCode(error);
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  return error instanceof Error ? error.message : String(error);
}

function showText(text: string): string {
  const shown =
    text.length > MAX_SHOWN_TEXT_CHARS ? `${text.slice(0, MAX_SHOWN_TEXT_CHARS)}…` : text;
  return JSON.stringify(shown);
}
