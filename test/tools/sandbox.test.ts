import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { ConfigError } from "../../src/errors.js";
import {
  assertSandboxAvailable,
  buildBwrapCommand,
  DEFAULT_SANDBOX_LIMITS,
  sandboxUser,
} from "../../src/tools/sandbox.js";

describe("assertSandboxAvailable", () => {
  test('"none" needs nothing', () => {
    expect(assertSandboxAvailable("none", undefined, [])).toBeUndefined();
  });

  test("finds bwrap on the PATH when it is not in the system folders", async () => {
    const dir = await mkdtemp(join(tmpdir(), "agent-run-bin-"));
    try {
      await writeFile(join(dir, "bwrap"), "#!/bin/sh\n", { mode: 0o755 });

      expect(assertSandboxAvailable("bwrap", `relative/bin:${dir}`, [], false)).toBe(
        join(dir, "bwrap"),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("fails with install instructions when bubblewrap is missing, never runs unsandboxed", async () => {
    const dir = await mkdtemp(join(tmpdir(), "agent-run-bin-"));
    try {
      const check = () => assertSandboxAvailable("bwrap", dir, [], false);

      expect(check).toThrow(ConfigError);
      expect(check).toThrow(
        'sandbox "bwrap" needs bubblewrap, which is not installed; install it (Debian/Ubuntu: sudo apt-get install bubblewrap) or remove sandbox: bwrap',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("as root, setpriv is needed too: the process limit holds only for another uid", async () => {
    const dir = await mkdtemp(join(tmpdir(), "agent-run-bin-"));
    try {
      await writeFile(join(dir, "bwrap"), "#!/bin/sh\n", { mode: 0o755 });
      const check = () => assertSandboxAvailable("bwrap", dir, [], true);

      expect(check).toThrow(ConfigError);
      expect(check).toThrow(
        'sandbox "bwrap" run as root needs setpriv, which is not installed: the process limit only holds for a command that does not run as root; install util-linux (Debian/Ubuntu: sudo apt-get install util-linux), run agent-run as another user, or remove sandbox: bwrap',
      );
      await writeFile(join(dir, "setpriv"), "#!/bin/sh\n", { mode: 0o755 });
      expect(check()).toBe(join(dir, "bwrap"));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("sandboxUser", () => {
  test("only a root runner gets one: a uid of its own for each tool, from a range no account uses", () => {
    expect(sandboxUser(undefined, false)).toBeUndefined();
    const uids = new Set(
      Array.from({ length: 20 }, () => sandboxUser("/usr/bin:/bin", true)?.uid ?? 0),
    );

    expect(uids.size).toBeGreaterThan(15);
    for (const uid of uids) {
      expect(uid).toBeGreaterThanOrEqual(0x7000_0000);
      expect(uid).toBeLessThan(0x7100_0000);
    }
  });
});

describe("buildBwrapCommand", () => {
  const base = {
    bwrapPath: "/usr/bin/bwrap",
    workspaceRoot: "/tmp/ws",
    shell: "/bin/bash",
    script: "echo hi",
  };

  test("binds / read-only, the workspace writable over a bounded private /tmp, and shares nothing else", () => {
    const command = buildBwrapCommand(base);

    expect(command.file).toBe("/usr/bin/bwrap");
    expect(command.fd3).toBeUndefined();
    expect(command.args.slice(0, -1).join(" ")).toBe(
      "--ro-bind / / --dev /dev --size 67108864 --tmpfs /dev/shm --remount-ro /dev --proc /proc" +
        " --size 16777216 --tmpfs /run" +
        " --size 1073741824 --tmpfs /tmp --bind /tmp/ws /tmp/ws" +
        " --unshare-net --unshare-pid --unshare-ipc --unshare-uts" +
        " --die-with-parent --new-session --cap-drop ALL --setenv TMPDIR /tmp --chdir /tmp/ws" +
        " -- /bin/bash --norc -c",
    );
    // Hard limits first (bash counts file sizes in KiB), then the script.
    expect(command.args.at(-1)).toMatch(/^ulimit -u (\d+) -f (\d+) \|\| exit 126; echo hi$/);
    const [, processes, blocks] = /-u (\d+) -f (\d+)/.exec(command.args.at(-1) ?? "") ?? [];
    expect(Number(processes)).toBeLessThanOrEqual(DEFAULT_SANDBOX_LIMITS.maxProcesses);
    expect(Number(blocks)).toBeLessThanOrEqual(DEFAULT_SANDBOX_LIMITS.maxFileBytes / 1024);
  });

  test("an argv runs as the script's arguments, never inside the script (an MCP server's command)", () => {
    const argv = ["node", "server.mjs", "$(touch /tmp/pwned)", "a b; rm -rf ~"];
    const command = buildBwrapCommand({ ...base, script: 'exec "$@"', scriptArgs: argv });

    const dashC = command.args.indexOf("-c");
    expect(command.args[dashC + 1]).toMatch(/^ulimit -u \d+ -f \d+ \|\| exit 126; exec "\$@"$/);
    expect(command.args.slice(dashC + 2)).toEqual(["agent-run", ...argv]);
  });

  test("a task's limits, read-only paths after the workspace bind, and 512-byte blocks for other shells", () => {
    const command = buildBwrapCommand({
      ...base,
      shell: "/bin/sh",
      limits: {
        tmpBytes: 2 * 1024 ** 2,
        shmBytes: 1024 ** 2,
        maxProcesses: 50,
        maxFileBytes: 3 * 1024 ** 2,
      },
      readOnlyPaths: ["/tmp/ws/.git", "/tmp/ws/sub/.git"],
    });

    expect(command.args.join(" ")).toContain(
      "--size 1048576 --tmpfs /dev/shm --remount-ro /dev --proc /proc --size 16777216 --tmpfs /run" +
        " --size 2097152 --tmpfs /tmp" +
        " --bind /tmp/ws /tmp/ws --ro-bind-try /tmp/ws/.git /tmp/ws/.git" +
        " --ro-bind-try /tmp/ws/sub/.git /tmp/ws/sub/.git --unshare-net",
    );
    expect(command.args.at(-1)).toBe("ulimit -u 50 -f 6144 || exit 126; echo hi");
    const posix = buildBwrapCommand({ ...base, env: { POSIXLY_CORRECT: "1" } });
    expect(posix.args.at(-1)).toMatch(/ -f 2097152 /);
  });

  test("as root, the command runs through setpriv as its own uid, keeping two capabilities, with a git config that trusts its repositories", () => {
    const command = buildBwrapCommand({
      ...base,
      user: { setprivPath: "/usr/bin/setpriv", uid: 1879048200 },
      env: { GIT_CONFIG_SYSTEM: "/opt/git/config" },
    });
    const args = command.args.join(" ");

    expect(args).toContain(
      "--perms 0444 --ro-bind-data 3 /dev/.agent-run-gitconfig --remount-ro /dev",
    );
    expect(args).toContain(
      "--cap-drop ALL --cap-add CAP_SETUID --cap-add CAP_SETGID --cap-add CAP_SETPCAP" +
        " --cap-add CAP_DAC_OVERRIDE --cap-add CAP_FOWNER --setenv TMPDIR /tmp" +
        " --setenv GIT_CONFIG_SYSTEM /dev/.agent-run-gitconfig --chdir /tmp/ws" +
        " -- /usr/bin/setpriv --reuid=1879048200 --regid=0 --clear-groups" +
        " --securebits=+no_setuid_fixup,+no_setuid_fixup_locked" +
        " --inh-caps=-all,+dac_override,+fowner --ambient-caps=+dac_override,+fowner" +
        " --bounding-set=-all,+dac_override,+fowner -- /bin/bash --norc -c ulimit",
    );
    expect(Buffer.from(command.fd3 ?? []).toString()).toBe(
      '[safe]\n\tdirectory = *\n[include]\n\tpath = "/opt/git/config"\n',
    );
  });
});
