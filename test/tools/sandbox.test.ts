import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { assertSandboxAvailable, buildBwrapCommand } from "../../src/tools/sandbox.js";

describe("assertSandboxAvailable", () => {
  test('"none" needs nothing', () => {
    expect(assertSandboxAvailable("none", undefined, [])).toBeUndefined();
  });

  test("finds bwrap on the PATH when it is not in the system folders", async () => {
    const dir = await mkdtemp(join(tmpdir(), "agent-run-bin-"));
    try {
      await writeFile(join(dir, "bwrap"), "#!/bin/sh\n", { mode: 0o755 });

      expect(assertSandboxAvailable("bwrap", `relative/bin:${dir}`, [])).toBe(join(dir, "bwrap"));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("fails with install instructions when bubblewrap is missing, never runs unsandboxed", async () => {
    const dir = await mkdtemp(join(tmpdir(), "agent-run-bin-"));
    try {
      const check = () => assertSandboxAvailable("bwrap", dir, []);

      expect(check).toThrow(ConfigError);
      expect(check).toThrow(
        'sandbox "bwrap" needs bubblewrap, which is not installed; install it (Debian/Ubuntu: sudo apt-get install bubblewrap) or remove sandbox: bwrap',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("buildBwrapCommand", () => {
  test("binds / read-only, the workspace writable over a private /tmp, and shares nothing else", () => {
    const command = buildBwrapCommand({
      bwrapPath: "/usr/bin/bwrap",
      workspaceRoot: "/tmp/ws",
      shell: "/bin/bash",
      script: "echo hi",
    });

    expect(command.file).toBe("/usr/bin/bwrap");
    expect(command.args.join(" ")).toBe(
      "--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --bind /tmp/ws /tmp/ws" +
        " --unshare-net --unshare-pid --unshare-ipc --unshare-uts" +
        " --die-with-parent --new-session --cap-drop ALL --setenv TMPDIR /tmp --chdir /tmp/ws" +
        " -- /bin/bash -c echo hi",
    );
  });
});
