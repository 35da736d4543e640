import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

/** Runs the fixture in a process of its own and returns the log lines it left on stdout. */
function run(lines: number, error: "error" | "none", how: "kill" | "exit") {
  const child = spawnSync(
    process.execPath,
    ["--import", "tsx", "tests/unit/fixtures/log-then-die.ts", String(lines), error, how],
    { encoding: "utf8", timeout: 20_000 },
  );
  return child.stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { msg: string; level: number; i?: number });
}

describe("logger (asynchronous stdout)", () => {
  it("an error line, and every line before it, is on stdout even when the process is killed right after", () => {
    const logged = run(500, "error", "kill");
    expect(logged.at(-1)).toMatchObject({ msg: "the error line", level: 50 });
    expect(logged.filter((l) => l.msg === "ordinary line").map((l) => l.i)).toEqual([...Array(500).keys()]);
  });

  it("on an ordinary exit every queued line is written", () => {
    const logged = run(500, "none", "exit");
    expect(logged.map((l) => l.i)).toEqual([...Array(500).keys()]);
  });
});
