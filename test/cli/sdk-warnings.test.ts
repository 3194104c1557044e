import { writeFile } from "node:fs/promises";
import { http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import { MOCKED_MESSAGES_URL, respond } from "../helpers/model-server.js";
import { reply, toScripted } from "../helpers/replies.js";
import { runCli } from "../helpers/run-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

// The Anthropic SDK's `messages.create` warns on every call for a model on its deprecated list.
const DEPRECATED_MODEL = "claude-sonnet-4-5";

const models: string[] = [];
// Each task calls twice: a tool call first, then (with a tool result to answer) the final text.
const server = setupServer(
  http.post(MOCKED_MESSAGES_URL, async ({ request }) => {
    const body = (await request.json()) as { model: string; messages: unknown[] };
    models.push(body.model);
    const isFirstCall = body.messages.length === 1;
    return respond(
      toScripted(
        isFirstCall
          ? reply().toolUse("list_files", { path: "." }).usage(10, 5)
          : reply().text("Done."),
      ),
    );
  }),
);
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => {
  models.length = 0;
  vi.restoreAllMocks();
});
afterAll(() => server.close());

async function threeTasks() {
  const dir = await tmpWorkspace({
    files: { "ws/a.txt": "a\n", "summary.md": "", "output.txt": "" },
  });
  for (const name of ["a", "b", "c"])
    await writeFile(
      dir.path(`${name}.yaml`),
      `prompt: Go.\nworkspace: ws\nmodel: ${DEPRECATED_MODEL}\n`,
    );
  return dir;
}

const WARNING = new RegExp(
  `agent-run: warning from the Anthropic SDK: The model '${DEPRECATED_MODEL}' is deprecated and will reach end-of-life on .+ Please migrate to a newer model\\.`,
);

describe("an SDK's warning", () => {
  test.each([1, 2])(
    "under GitHub Actions (-j %i): once, prefixed, inside a task's group, and one ::warning",
    async (concurrency) => {
      await using dir = await threeTasks();
      const consoleWarn = vi.spyOn(console, "warn");
      const run = await runCli(
        [
          "-j",
          String(concurrency),
          "--out",
          dir.path("out"),
          ...["a", "b", "c"].map((n) => dir.path(`${n}.yaml`)),
        ],
        {
          env: {
            ANTHROPIC_API_KEY: "sk-ant-test-not-a-real-key",
            GITHUB_ACTIONS: "true",
            CI: "true",
            GITHUB_STEP_SUMMARY: dir.path("summary.md"),
            GITHUB_OUTPUT: dir.path("output.txt"),
          },
        },
      );

      let isInGroup = false;
      const placed: string[] = [];
      for (const line of run.stderr.split("\n")) {
        if (line.startsWith("::group::")) isInGroup = true;
        else if (line === "::endgroup::") isInGroup = false;
        else if (WARNING.test(line) && !line.startsWith("::"))
          placed.push(isInGroup ? "in a group" : "outside");
      }
      const annotations = run.stderr.split("\n").filter((line) => line.startsWith("::warning"));
      expect(run.exitCode).toBe(0);
      expect(models).toEqual(Array(6).fill(DEPRECATED_MODEL));
      expect(consoleWarn).not.toHaveBeenCalled();
      expect(placed).toEqual(["in a group"]);
      // With -j 2, whichever task calls first is the one whose group shows it.
      expect(run.stderr).toMatch(new RegExp(`^\\[[abc]\\] ${WARNING.source}`, "m"));
      expect(annotations).toHaveLength(1);
      expect(annotations[0]).toMatch(
        /^::warning title=agent-run%3A warning from the Anthropic SDK::/,
      );
    },
  );

  test("off GitHub too: one prefixed line in the log for six calls in three tasks", async () => {
    await using dir = await threeTasks();
    const consoleWarn = vi.spyOn(console, "warn");

    const run = await runCli(
      ["-j", "2", "--out", dir.path("out"), ...["a", "b", "c"].map((n) => dir.path(`${n}.yaml`))],
      { env: { ANTHROPIC_API_KEY: "sk-ant-test-not-a-real-key", CI: "true" } },
    );

    expect(run.exitCode).toBe(0);
    expect(models).toHaveLength(6);
    expect(consoleWarn).not.toHaveBeenCalled();
    expect(run.stderr.match(new RegExp(WARNING.source, "g"))).toHaveLength(1);
    expect(run.stderr).toMatch(new RegExp(`^\\[[abc]\\] ${WARNING.source}`, "m"));
  });
});
