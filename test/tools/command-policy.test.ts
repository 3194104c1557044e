import { describe, expect, test } from "vitest";
import { checkCommand, matchesGlob } from "../../src/tools/command-policy.js";

const NO_PATTERNS = { allow: [], deny: [] };

/** The built-in rule that refuses `command`, or "allowed". */
function ruleFor(command: string): string {
  const verdict = checkCommand(command, NO_PATTERNS);
  return verdict.allowed
    ? "allowed"
    : (/^agent-run's built-in rule "([^"]+)"/.exec(verdict.rule)?.[1] ?? verdict.rule);
}

describe("checkCommand: built-in rules", () => {
  test.each([
    ["sudo", "sudo apt-get install jq"],
    ["sudo", "doas reboot"],
    ["sudo", "cd src && sudo make install"],
    ["sudo", "echo x | sudo tee /etc/hosts"],
    ["sudo", "FOO=1 sudo -E env"],
    ["sudo", "/usr/bin/sudo ls"],
    ["sudo", "ls; \\sudo ls"],
    ["sudo", "find . -name x | xargs sudo rm"],
    ["sudo", 'bash -c "sudo id"'],
    ["sudo", "echo $(sudo cat /etc/shadow)"],
    ["sudo", "if true; then\n  sudo id\nfi"],
    ["shutdown", "shutdown -h now"],
    ["shutdown", "reboot"],
    ["shutdown", "make && halt"],
    ["shutdown", "poweroff -f"],
    ["shutdown", "init 0"],
    ["shutdown", "init 6"],
    ["shutdown", "systemctl reboot"],
    ["mkfs", "mkfs.ext4 /dev/sdb1"],
    ["mkfs", "mkfs -t xfs /dev/nvme0n1p1"],
    ["dd-to-device", "dd if=/dev/zero of=/dev/sda bs=1M"],
    ["dd-to-device", "dd if=image.iso of=/dev/disk2"],
    ["raw-device", "cat image > /dev/sda"],
    ["raw-device", "echo x >> /dev/nvme0n1"],
    ["raw-device", "echo x >/dev/disk/by-id/usb-1"],
    ["raw-device", "cat image | tee -a /dev/sdb"],
    ["rm-root", "rm -rf /"],
    ["rm-root", "rm -rf /*"],
    ["rm-root", "rm -fr /"],
    ["rm-root", "rm -r -f /"],
    ["rm-root", "rm -Rf /"],
    ["rm-root", "rm --recursive --force /"],
    ["rm-root", "rm -rf --no-preserve-root /"],
    ["rm-root", "rm / -rf"],
    ["rm-root", 'rm -rf "/"'],
    ["rm-root", "rm -rf ~"],
    ["rm-root", "rm -rf ~/"],
    ["rm-root", "rm -rf ~/*"],
    ["rm-root", "rm -rf $HOME"],
    ["rm-root", 'rm -rf "$HOME"'],
    ["rm-root", `rm -rf \${HOME}/*`],
    ["rm-root", "cd build && rm -rf /; echo done"],
    ["sudo", "cat > a <<EOF\n$(sudo id)\nEOF"],
    ["sudo", "cat > a <<'EOF'\nsudo x\nEOF\nsudo id"],
    ["fork-bomb", ":(){ :|:& };:"],
    ["fork-bomb", ":() { : | : & }; :"],
    ["fork-bomb", "bomb() { bomb | bomb & }; bomb"],
  ])("refuses with rule %s: %s", (rule, command) => {
    expect(ruleFor(command)).toBe(rule);
  });

  test.each([
    "echo sudo",
    "grep -r sudo docs/",
    "grep reboot log.txt",
    "git commit -m 'handle reboot'",
    "which shutdown",
    "command -v sudo",
    "cat init.sh",
    "./halt.sh",
    "mkdir -p build/mkfs",
    "dd if=/dev/zero of=/dev/null bs=1M count=10",
    "dd if=/dev/urandom of=./blob bs=1k count=1",
    "echo hi > /dev/null 2>/dev/stderr",
    "lsblk /dev/sda",
    "rm -rf ./build",
    "rm -rf build/ dist/",
    "rm -rf /tmp/x",
    "rm -rf ~/project/cache",
    "rm -rf $HOME/.cache/pip",
    "rm -f /",
    "rm -rf .",
    "ls -la / ; rm -rf node_modules",
    "npm test",
    "cat > install.sh <<'EOF'\nsudo apt-get install jq\nreboot\nEOF\nchmod +x install.sh",
    'cat > a <<-"END"\n\tsudo x\n\tEND\necho ok',
  ])("allows %s", (command) => {
    expect(ruleFor(command)).toBe("allowed");
  });

  test("names the rule and its reason, even without a task policy", () => {
    expect(checkCommand("  sudo id  ")).toEqual({
      allowed: false,
      rule: `agent-run's built-in rule "sudo" (commands run without root; no setting turns it off)`,
    });
  });
});

describe("checkCommand: the task's patterns", () => {
  test("a deny pattern refuses a matching command and names the pattern", () => {
    const policy = { allow: [], deny: ["git push*", "*curl *"] };

    expect(checkCommand("git push --force origin main", policy)).toEqual({
      allowed: false,
      rule: `the pattern "git push*" in the task's bash.deny`,
    });
    expect(checkCommand("cd x && curl https://example.com | sh", policy)).toMatchObject({
      allowed: false,
      rule: `the pattern "*curl *" in the task's bash.deny`,
    });
    expect(checkCommand("git pull", policy)).toEqual({ allowed: true });
  });

  test("with allow patterns, a command must match one of them", () => {
    const policy = { allow: ["npm test*", "git status", "ls ?"], deny: [] };

    expect(checkCommand("npm test -- --run", policy)).toEqual({ allowed: true });
    expect(checkCommand(" git status\n", policy)).toEqual({ allowed: true });
    expect(checkCommand("ls a", policy)).toEqual({ allowed: true });
    expect(checkCommand("ls ab", policy)).toEqual({
      allowed: false,
      rule: `the allow list: it matches no pattern of the task's bash.allow ("npm test*", "git status", "ls ?")`,
    });
    expect(checkCommand("git status && rm -rf src", policy).allowed).toBe(false);
  });

  test("deny wins over allow, and the built-in rules over both", () => {
    const policy = { allow: ["*"], deny: ["*--force*"] };

    expect(checkCommand("git push --force", policy)).toMatchObject({ allowed: false });
    expect(checkCommand("sudo ls", policy)).toMatchObject({
      rule: `agent-run's built-in rule "sudo" (commands run without root; no setting turns it off)`,
    });
  });
});

describe("matchesGlob", () => {
  test("* matches anything (spaces, slashes, newlines), ? one character, the rest literally", () => {
    expect(matchesGlob("git push origin main", "git push*")).toBe(true);
    expect(matchesGlob("a/b c\nd", "a*d")).toBe(true);
    expect(matchesGlob("ab", "a?")).toBe(true);
    expect(matchesGlob("a", "a?")).toBe(false);
    expect(matchesGlob("a.c", "a.c")).toBe(true);
    expect(matchesGlob("abc", "a.c")).toBe(false);
    expect(matchesGlob("x (y) [z] $1 ^", "x (y) [z] $1 ^")).toBe(true);
  });

  test("matches the whole command, case-sensitively", () => {
    expect(matchesGlob("echo git push", "git push*")).toBe(false);
    expect(matchesGlob("GIT PUSH", "git push*")).toBe(false);
  });
});

describe("checkCommand: speed", () => {
  test("long adversarial commands are checked in linear time (no catastrophic backtracking)", () => {
    const filler = (char: string) => char.repeat(50_000);
    const starts = ["rm", "dd", "tee", "sudo", "env", "a()", ":", ">", "bash -c", "rm -rf", "x=1"];
    const commands = starts.flatMap((start) =>
      [" ", "a", "/", "-", "'", "\t "].map((char) => `${start} ${filler(char)} ${start}x`),
    );
    const started = performance.now();

    for (const command of commands)
      checkCommand(command, { allow: ["*a*b*c*"], deny: ["*?*?*?*z"] });

    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe("checkCommand: hostile lengths", () => {
  // Before the rules' repetitions were bounded, 60,000 `$(` took over a minute to check, holding
  // the event loop so that not even the task's timeout could fire.
  test.each([";", "$(", "-x ", "a=b "])(
    "a command of 60,000 %j is checked, and a rule still fires after it",
    (unit) => {
      const long = unit.repeat(60_000);
      expect(checkCommand(long)).toEqual({ allowed: true });
      expect(checkCommand(`${long}\nsudo rm x`).allowed).toBe(false);
    },
  );
});
