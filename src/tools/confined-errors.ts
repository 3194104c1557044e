import { join } from "node:path";
import { ToolError } from "./define-tool.js";
import { errorCode, toDisplayPath } from "./workspace-path.js";

// The confined walk's own refusals, worded for the model: each names the path as it sent it
// (quoted and clipped) or as the workspace shows it, never a `/proc/self/fd` path.

/**
 * What a tool does with the path: it decides the messages, and whether folders are made (only
 * for "write"; "edit" changes a file that must exist).
 */
export type Intent = "read" | "edit" | "write" | "list";

/** What a message needs of the walk: the root, the tool's intent and the quoted input. */
type WalkScope = { realRoot: string; intent: Intent; input: string };

export function danglingLink(scope: WalkScope): ToolError {
  return new ToolError(`path ${scope.input} is a symbolic link whose target does not exist`);
}

export function missing(scope: WalkScope, parts: readonly string[]): ToolError {
  const shown = toDisplayPath(scope.realRoot, join(scope.realRoot, ...parts));
  return scope.intent === "list"
    ? new ToolError(`folder "${shown}" does not exist; list its parent to see what exists`)
    : new ToolError(`file "${shown}" does not exist; use list_files to see which files exist`);
}

export function notAFolder(scope: WalkScope, parts: readonly string[]): ToolError {
  const shown = toDisplayPath(scope.realRoot, join(scope.realRoot, ...parts));
  return scope.intent === "write"
    ? new ToolError(`cannot create the folder for "${shown}": part of its path is a file`)
    : missing(scope, parts);
}

/** The system's message quotes the whole path: these get a short one of their own. */
export function explain(error: unknown, scope: WalkScope): unknown {
  switch (errorCode(error)) {
    case "EACCES":
      return new ToolError(`path ${scope.input} is not accessible (permission denied)`);
    case "ENAMETOOLONG":
      return new ToolError(`path ${scope.input} is too long for the file system`);
    default:
      return error;
  }
}
