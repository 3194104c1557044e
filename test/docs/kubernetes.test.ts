import { readdirSync, readFileSync } from "node:fs";
import { type IJob, Job } from "kubernetes-models/batch/v1/Job";
import {
  type IPersistentVolumeClaim,
  PersistentVolumeClaim,
} from "kubernetes-models/v1/PersistentVolumeClaim";
import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { docSandbox } from "../helpers/doc-claims.js";
import { typeCheckSources } from "../helpers/type-check.js";

// docs/k8s/ holds the Kubernetes recipe's manifests as users copy them. Each is checked against
// the Kubernetes OpenAPI schema as the kubernetes-models package carries it, twice: by its
// validator (generated from the schema: types, enums, formats, required fields), and by the
// TypeScript compiler against its interfaces (generated from the same schema), which refuses a
// field the schema does not have, as `kubectl apply`'s strict field validation does.

const PVC = parse(readFileSync("docs/k8s/pvc.yaml", "utf8")) as IPersistentVolumeClaim;
const JOB = parse(readFileSync("docs/k8s/job.yaml", "utf8")) as IJob;
const REPORT_JOB = parse(readFileSync("docs/k8s/report-job.yaml", "utf8")) as IJob;

type Checked = { name: string; json: IJob | IPersistentVolumeClaim };

const MANIFESTS: Checked[] = [
  { name: "pvc", json: PVC },
  { name: "job", json: JOB },
  { name: "report_job", json: REPORT_JOB },
];

/** The validator's verdict: undefined when valid, else its message. */
function validationError(json: IJob | IPersistentVolumeClaim): string | undefined {
  try {
    (json.kind === "Job" ? new Job(json) : new PersistentVolumeClaim(json)).validate();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** The compiler's complaints about each manifest, as an object literal of its interface. */
function typeErrors(manifests: readonly Checked[]): Map<string, string[]> {
  const sources = new Map(
    manifests.map(({ name, json }) => {
      const [type, module] =
        json.kind === "Job"
          ? ["IJob", "kubernetes-models/batch/v1/Job"]
          : ["IPersistentVolumeClaim", "kubernetes-models/v1/PersistentVolumeClaim"];
      const text = `import type { ${type} } from "${module}";\nexport const manifest: ${type} = ${JSON.stringify(json, null, 2)};\n`;
      return [name, text];
    }),
  );
  return typeCheckSources(sources);
}

/** A deep copy of the Job with `change` applied. */
function changedJob(change: (job: IJob) => void): IJob {
  const copy = structuredClone(JOB);
  change(copy);
  return copy;
}

/** A Job's pod spec (the recipe's Jobs all have one). */
function podOf(job: IJob) {
  const pod = job.spec?.template.spec;
  if (pod === undefined) throw new Error("the Job has no pod spec");
  return pod;
}

describe("docs/k8s: the Kubernetes recipe's manifests", () => {
  test.each(MANIFESTS)("$name validates against its Kubernetes schema", ({ json }) => {
    expect(validationError(json)).toBeUndefined();
  });

  test("every manifest has only fields of its type, of the right types", () => {
    expect([...typeErrors(MANIFESTS).values()].flat()).toEqual([]);
  });

  test("the checks have teeth: a wrong type or value, a misspelt field, a misspelt field deep inside", () => {
    const wrongType = changedJob((job) =>
      Object.assign(job.spec ?? {}, { backoffLimitPerIndex: "1" }),
    );
    const wrongValue = changedJob((job) =>
      Object.assign(job.spec ?? {}, { completionMode: "indexed" }),
    );
    const misspelt = changedJob((job) =>
      Object.assign(job.spec ?? {}, { completionsMode: "Indexed" }),
    );
    const deep = changedJob((job) =>
      Object.assign(podOf(job).containers[0] ?? {}, { comand: ["sh"] }),
    );

    expect(validationError(wrongType)).toMatch(/spec\/backoffLimitPerIndex must be integer/);
    expect(validationError(wrongValue)).toMatch(/spec\/completionMode must be equal to one of/);
    const errors = typeErrors([
      { name: "wrong_type", json: wrongType },
      { name: "misspelt", json: misspelt },
      { name: "deep", json: deep },
    ]);
    expect(errors.get("wrong_type")?.join("\n")).toMatch(
      /Type 'string' is not assignable to type 'number'/,
    );
    expect(errors.get("misspelt")?.join("\n")).toMatch(
      /'"completionsMode"' does not exist in type 'IJobSpec'/,
    );
    expect(errors.get("deep")?.join("\n")).toMatch(/'"comand"' does not exist in type/);
  });

  test("the Job: Indexed, a retry per index, pods that run --shard auto with the count it sets", () => {
    const pod = podOf(JOB);
    const [container] = pod.containers;
    const shardCount = container?.env?.find((entry) => entry.name === "AGENT_RUN_SHARD_COUNT");

    expect(JOB.spec?.completionMode).toBe("Indexed");
    expect(JOB.spec?.backoffLimitPerIndex).toBe(1);
    expect(pod.restartPolicy).toBe("Never");
    expect(shardCount?.value).toBe(String(JOB.spec?.completions));
    expect(container?.args?.join(" ")).toMatch(
      /^exec agent-run run '\S+' --shard auto --out "\/runs\/shard-\$JOB_COMPLETION_INDEX"$/,
    );
    // Exit 1 (a task did not pass) fails the index without a rerun; exit 2 fails the whole Job.
    const onExitCodes = JOB.spec?.podFailurePolicy?.rules.flatMap((rule) =>
      rule.onExitCodes === undefined
        ? []
        : [[rule.action, rule.onExitCodes.containerName, rule.onExitCodes.values]],
    );
    expect(onExitCodes).toEqual([
      ["FailIndex", container?.name, [1]],
      ["FailJob", container?.name, [2]],
    ]);
  });

  test("the shards and the report share the volume the PVC manifest claims; the report reads every shard", () => {
    const claims = [JOB, REPORT_JOB].map(
      (job) =>
        podOf(job).volumes?.find((volume) => volume.persistentVolumeClaim !== undefined)
          ?.persistentVolumeClaim?.claimName,
    );

    expect(claims).toEqual([PVC.metadata?.name, PVC.metadata?.name]);
    expect(podOf(REPORT_JOB).containers[0]?.args).toEqual([
      "report",
      "/runs/shard-*",
      "--json",
      "/runs/report.json",
      "--junit",
      "/runs/junit.xml",
    ]);
  });
});

describe("docs/k8s: the recipe's commands, run as the pods would run them", () => {
  test("each index's shard, then the report over all of them: every example task once", async () => {
    await using box = await docSandbox();
    const pod = podOf(JOB);
    const [container] = pod.containers;
    const count = JOB.spec?.completions ?? 0;
    // The example tasks, offline, instead of the recipe's evals; the volume is a folder here.
    const script = (container?.args?.[0] ?? "")
      .replace(/'evals\/\*\.yaml'/, "--offline 'tasks/*.yaml'")
      .replaceAll("/runs/", "runs/");
    const env = Object.fromEntries(
      (container?.env ?? []).flatMap((entry) =>
        entry.value === undefined ? [] : [[entry.name, entry.value]],
      ),
    );

    const shards = [];
    for (let index = 0; index < count; index += 1) {
      shards.push(await box.sh(script, { ...env, JOB_COMPLETION_INDEX: String(index) }));
    }
    const args = (podOf(REPORT_JOB).containers[0]?.args ?? []).map((arg) =>
      arg.replace(/^\/runs\//, "runs/"),
    );
    const report = await box.sh(`agent-run ${args.map((arg) => `'${arg}'`).join(" ")}`);

    expect(shards.map((shard) => shard.code)).toEqual(Array(count).fill(0));
    expect(
      shards.map((shard) =>
        /shard (\d+)\/(\d+) \(JOB_COMPLETION_INDEX=(\d+)/.exec(shard.stderr)?.slice(1),
      ),
    ).toEqual(
      Array.from({ length: count }, (_, index) => [
        String(index + 1),
        String(count),
        String(index),
      ]),
    );
    expect(report.code).toBe(0);
    // Every example task of tasks/, once.
    const examples = readdirSync("tasks").filter((name) => name.endsWith(".yaml")).length;
    expect(report.stdout).toContain(`${examples}/${examples} passed`);
    expect(readFileSync(`${box.root}/runs/junit.xml`, "utf8")).toContain(`tests="${examples}"`);
  }, 120_000);
});
