import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { parseDocument } from "yaml";
import { loadReplies } from "../../src/task/load-replies.js";
import { loadTasks } from "../../src/task/load-task.js";
import { readTaskText } from "../../src/task/read-task-text.js";
import { strictAjv } from "../helpers/json-schema-validator.js";

// Issue 16, section 3: schema/task.schema.json against the runner on the bad-task corpus. The
// schema may miss a mistake (it cannot look at the file system or at other fields' values), but
// it must never refuse what the runner accepts; what it misses is the list below, and the README's.

const CORPUS = "fixtures/bad-tasks";

/** Refused before there is data for a schema: not UTF-8 text, or not one well-formed YAML document. */
const NOT_DATA = [
  "bad-yaml-syntax.yaml",
  "binary.yaml",
  "duplicate-key.yaml",
  "not-utf8.yaml",
  "utf16.yaml",
  "yaml-alias-before-anchor.yaml",
  "yaml-alias-bomb.yaml",
  "yaml-alias-flood.yaml",
  "yaml-alias-with-anchor.yaml",
  "yaml-bad-escape.yaml",
  "yaml-bad-indentation.yaml",
  "yaml-block-in-flow.yaml",
  "yaml-duplicate-nested-key.yaml",
  "yaml-long-key.yaml",
  "yaml-reserved-character.yaml",
  "yaml-stray-bracket.yaml",
  "yaml-tab-indentation.yaml",
  "yaml-two-anchors.yaml",
  "yaml-two-documents.yaml",
  "yaml-unclosed-brace.yaml",
  "yaml-unclosed-bracket.yaml",
  "yaml-unclosed-quote.yaml",
  "yaml-unclosed-single-quote.yaml",
  "yaml-undefined-alias.yaml",
];

/** What the task schema cannot catch, each with the corpus files that make that mistake. */
const SCHEMA_CANNOT_CATCH: Record<string, string[]> = {
  "files that must exist: the workspace folder, the replies file, and an MCP server's `command` given as a path":
    [
      "mcp-command-missing.yaml",
      "replies-missing.yaml",
      "workspace-is-a-file.yaml",
      "workspace-missing.yaml",
      "workspace-nul-byte.yaml",
      "workspace-tilde.yaml",
    ],
  "the content of the replies file": ["replies-malformed.yaml"],
  "a task name taken from the file name (no `name:`)": ["default-name+invalid.yaml"],
  "task names shared by two files of one batch": [],
  "`reasoning.budget_tokens` not below `limits.max_output_tokens`, or set for a provider on the OpenAI API":
    ["reasoning-budget-on-openai.yaml", "reasoning-budget-too-big.yaml"],
  "`provider.compat` for a provider on the Messages API": ["provider-compat-on-anthropic.yaml"],
  "an API key in `api_key_env` that has a variable name's shape (long and random)": [
    "provider-random-api-key-env.yaml",
  ],
  "a user name, password or key in `provider.base_url`": ["provider-base-url-with-password.yaml"],
  "two command tools with one name": ["command-tool-repeated-name.yaml"],
  "a command tool's `input_schema` that Ajv does not compile (a misspelt keyword, a malformed one)":
    ["command-tool-schema-typo.yaml"],
  "a command tool's `command` that the task's own `bash.allow` or `bash.deny` refuses": [
    "command-tool-command-denied.yaml",
  ],
  "`todo_read` in `tools` without `todo_write`": ["tools-todo-read-without-write.yaml"],
  "a `plan_complete` check on a task without `todo_write` in `tools`": [
    "check-plan-complete-without-plan.yaml",
  ],
  "`subagents:` on a task without `task` in `tools`": ["subagents-without-task.yaml"],
  "an MCP tool in `mcp_servers.<server>.tools` whose full name `mcp__<server>__<tool>` is longer than 64 characters":
    ["mcp-tool-name-too-long.yaml"],
  "an `output_schema` that Ajv does not compile (a misspelt keyword, a `$schema` other than draft-07 or 2020-12)":
    ["output-schema-draft-04.yaml", "output-schema-typo.yaml"],
  "an `output_equals` check on a task without `output_schema`": [
    "check-output-equals-without-schema.yaml",
  ],
};

const corpusFiles = readdirSync(CORPUS)
  .filter((name) => name.endsWith(".yaml"))
  .sort();

const validateTask = strictAjv().compile(
  JSON.parse(readFileSync("schema/task.schema.json", "utf8")),
);

type SchemaVerdict = "not data" | "accepts" | "refuses";

/** What a schema-aware editor sees: the file's data, as the runner reads and parses it. */
function schemaVerdict(file: string): SchemaVerdict {
  const text = readTaskText(file);
  if (!text.ok) return "not data";
  const doc = parseDocument(text.text, { uniqueKeys: true });
  if (doc.errors.length > 0) return "not data";
  let data: unknown;
  try {
    data = doc.toJS();
  } catch {
    return "not data"; // unresolved aliases and alias bombs surface here
  }
  return validateTask(data) ? "accepts" : "refuses";
}

/** The runner's whole validation of a file: loading the task, then its replies file. */
async function runnerRefuses(files: string[]): Promise<boolean> {
  try {
    const tasks = await loadTasks(files);
    for (const task of tasks) if (task.replies !== undefined) await loadReplies(task.replies);
    return false;
  } catch {
    return true;
  }
}

function expectedVerdict(file: string): SchemaVerdict {
  if (NOT_DATA.includes(file)) return "not data";
  const missed = Object.values(SCHEMA_CANNOT_CATCH).some((files) => files.includes(file));
  return missed ? "accepts" : "refuses";
}

describe("the task schema against the runner, on fixtures/bad-tasks", () => {
  test("every file the lists name is in the corpus", () => {
    const listed = [...NOT_DATA, ...Object.values(SCHEMA_CANNOT_CATCH).flat()];

    expect(listed.filter((file) => !corpusFiles.includes(file))).toEqual([]);
  });

  test.each(corpusFiles)("%s: the runner refuses it; the schema as listed", async (file) => {
    const path = join(CORPUS, file);

    expect(await runnerRefuses([path])).toBe(true);
    expect(schemaVerdict(path)).toBe(expectedVerdict(file));
  });

  test("duplicate-names/: the schema accepts each file, the runner refuses the pair", async () => {
    const pair = ["a.yaml", "b.yaml"].map((name) => join(CORPUS, "duplicate-names", name));

    expect(pair.map(schemaVerdict)).toEqual(["accepts", "accepts"]);
    expect(await runnerRefuses(pair)).toBe(true);
    expect(SCHEMA_CANNOT_CATCH).toHaveProperty(["task names shared by two files of one batch"]);
  });

  test("every example task in tasks/ validates against the schema, as the runner accepts it", async () => {
    const examples = readdirSync("tasks")
      .filter((name) => name.endsWith(".yaml"))
      .map((name) => join("tasks", name));

    expect(examples.length).toBeGreaterThan(0);
    expect(examples.map((file) => [file, schemaVerdict(file)])).toEqual(
      examples.map((file) => [file, "accepts"]),
    );
    expect(await runnerRefuses(examples)).toBe(false);
  });

  test("README's list of what the task schema cannot catch is this test's list", () => {
    const readme = readFileSync("README.md", "utf8");
    const start = readme.indexOf("**What the task schema cannot catch**");
    const bullets = readme
      .slice(start)
      .split("\n\n")[1]
      ?.split("\n- ")
      .map((item) => item.replace(/^- /, "").replace(/\s+/g, " ").trim());

    expect(start).toBeGreaterThan(-1);
    expect(bullets).toEqual(Object.keys(SCHEMA_CANNOT_CATCH));
  });
});
