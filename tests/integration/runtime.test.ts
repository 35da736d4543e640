import { readFileSync } from "node:fs";
import { describe, expect, inject, it } from "vitest";

/** Node.js 24 is what the project declares (package.json `engines`), installs (the pinned `node` devDependency) and runs on. */
describe("runtime", () => {
  const declared = JSON.parse(readFileSync("package.json", "utf8")) as {
    engines: { node: string };
    devDependencies: Record<string, string>;
  };

  it("the test runner runs on the pinned Node.js 24", () => {
    expect(declared.engines.node).toMatch(/^\^24\./);
    expect(process.version).toBe(`v${declared.devDependencies.node}`);
  });

  it("the started server says at boot that it runs on the same Node.js", () => {
    const listening = readFileSync(inject("serverLog"), "utf8")
      .split("\n")
      .filter((line) => line.includes('"Routekit is listening"'))
      .map((line) => JSON.parse(line) as { node?: string });
    expect(listening.length).toBeGreaterThan(0);
    expect(listening[0]?.node).toBe(`v${declared.devDependencies.node}`);
  });
});
