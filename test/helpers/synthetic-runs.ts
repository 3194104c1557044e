import { cp, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** A step's output: a test runner's report, `lines` lines long. */
function runnerOutput(step: number, lines: number): string {
  const body = Array.from({ length: lines }, (_, index) =>
    index % 7 === 6
      ? `not ok ${index + 1} - case ${index} of step ${step}`
      : `ok ${index + 1} - case ${index} of step ${step}`,
  );
  return `${body.join("\n")}\n# tests ${lines}\n[exit code: 1]`;
}

/**
 * A large batch made from a real run (`template`, a task folder of the offline examples whose
 * transcript has a bash call): `tasks` task folders, each a run of `steps` steps, each step a
 * short text and a bash call whose output is 30 lines, every tenth one 400 lines. The lines are
 * the template's own, renumbered, so the transcript reader reads them as it reads any run.
 */
export async function writeSyntheticBatch(
  template: string,
  out: string,
  shape: { tasks: number; steps: number },
): Promise<void> {
  const lines = (await readFile(join(template, "transcript.jsonl"), "utf8"))
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
  const init = lines[0];
  const reply = lines.find((line) => line.type === "assistant");
  const result = lines.find((line) => line.type === "user" && line.tool_name === "bash");
  const end = lines.at(-1);
  const summary = JSON.parse(await readFile(join(template, "summary.json"), "utf8"));
  for (let task = 0; task < shape.tasks; task++) {
    const name = `synthetic-${String(task).padStart(3, "0")}`;
    const folder = join(out, name);
    await mkdir(folder, { recursive: true });
    const steps = Array.from({ length: shape.steps }, (_, index) => {
      const step = index + 1;
      const id = `toolu_syn_${step}`;
      const content = [
        {
          type: "text",
          text: `Step ${step}: I'll run the tests again and read what fails.`,
          citations: null,
        },
        {
          type: "tool_use",
          id,
          name: "bash",
          input: { command: `node --test test/ # attempt ${step}` },
        },
      ];
      const output = runnerOutput(step, step % 10 === 0 ? 400 : 30);
      return [
        JSON.stringify({
          ...reply,
          step,
          message: { ...reply.message, id: `msg_syn_${step}`, content },
        }),
        JSON.stringify({
          ...result,
          step,
          message: {
            ...result.message,
            content: [{ type: "tool_result", tool_use_id: id, content: output }],
          },
        }),
      ];
    });
    const transcript = [
      JSON.stringify({ ...init, task: { ...init.task, name } }),
      ...steps.flat(),
      JSON.stringify({ ...end, num_turns: shape.steps }),
    ];
    await writeFile(join(folder, "transcript.jsonl"), `${transcript.join("\n")}\n`);
    await writeFile(
      join(folder, "summary.json"),
      JSON.stringify({ ...summary, name, steps: shape.steps, passed: task % 9 !== 0 }),
    );
    await cp(join(template, "changes.patch"), join(folder, "changes.patch"));
  }
}
