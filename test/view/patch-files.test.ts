import { describe, expect, test } from "vitest";
import { splitPatch } from "../../src/view/patch-files.js";

/** A patch as git writes one: a deletion, a quoted non-ASCII name, a name with spaces (its marker lines end with a tab), a binary file, a mode change. */
const PATCH = [
  "diff --git a/gone.txt b/gone.txt",
  "deleted file mode 100644",
  "index 3367afd..0000000",
  "--- a/gone.txt",
  "+++ /dev/null",
  "@@ -1 +0,0 @@",
  "-old",
  'diff --git "a/s\\303\\251.txt" "b/s\\303\\251.txt"',
  "index 7898192..422c2b7 100644",
  '--- "a/s\\303\\251.txt"',
  '+++ "b/s\\303\\251.txt"',
  "@@ -1 +1,2 @@",
  " a",
  "+b",
  "diff --git a/x</script><img src=x>.js b/x</script><img src=x>.js",
  "new file mode 100644",
  "index 0000000..d8b3179",
  "--- /dev/null",
  "+++ b/x</script><img src=x>.js\t",
  "@@ -0,0 +1 @@",
  "+<img>",
  "\\ No newline at end of file",
  "diff --git a/data.bin b/data.bin",
  "new file mode 100644",
  "index 0000000..8352675",
  "GIT binary patch",
  "literal 3",
  "KcmZQzWC8#H2LJ>B",
  "",
  "diff --git a/run.sh b/run.sh",
  "old mode 100644",
  "new mode 100755",
  "",
].join("\n");

describe("splitPatch", () => {
  test("finds each file's path, status, mode change, binary flag and diff lines", () => {
    expect(splitPatch(PATCH, 2_000)).toEqual([
      {
        path: "gone.txt",
        status: "deleted",
        binary: false,
        mode: null,
        lines: ["@@ -1 +0,0 @@", "-old"],
      },
      {
        path: "sé.txt",
        status: "modified",
        binary: false,
        mode: null,
        lines: ["@@ -1 +1,2 @@", " a", "+b"],
      },
      {
        path: "x</script><img src=x>.js",
        status: "added",
        binary: false,
        mode: null,
        lines: ["@@ -0,0 +1 @@", "+<img>", "\\ No newline at end of file"],
      },
      { path: "data.bin", status: "added", binary: true, mode: null, lines: [] },
      {
        path: "run.sh",
        status: "modified",
        binary: false,
        mode: { before: "100644", after: "100755" },
        lines: [],
      },
    ]);
  });

  test("hostile text: lines are cut, text before the first file and a patch cut anywhere are harmless", () => {
    const long = `+${"x".repeat(5_000)}`;
    const text = `junk\n+not a file\n${PATCH.slice(0, 60)}\n@@ -1 +1 @@\n${long}`;

    const [file] = splitPatch(text, 100);
    expect(splitPatch(text, 100)).toHaveLength(1);
    expect(file?.path).toBe("gone.txt");
    expect(file?.lines.at(-1)).toBe(`${long.slice(0, 100)}…`);
  });
});
