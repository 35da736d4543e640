import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { forget, peek, remember, rememberPerGraph, rememberValue } from "@/server/runtime/remember";

describe("remember", () => {
  it("creates once per process, on globalThis under the routekit namespace", () => {
    let created = 0;
    const a = remember("test.once", () => ({ n: ++created }));
    const b = remember("test.once", () => ({ n: ++created }));
    expect(a).toBe(b);
    expect(created).toBe(1);
    expect((globalThis as unknown as Record<symbol, unknown>)[Symbol.for("routekit.test.once")]).toBe(a);
    forget("test.once");
  });

  it("keeps a falsy value instead of creating it again", () => {
    let created = 0;
    remember("test.falsy", () => {
      created++;
      return 0;
    });
    expect(
      remember("test.falsy", () => {
        created++;
        return 1;
      }),
    ).toBe(0);
    expect(created).toBe(1);
    forget("test.falsy");
  });

  it("peek never creates; forget hands the value back and the next use creates afresh", () => {
    expect(peek("test.cycle")).toBeUndefined();
    const first = remember("test.cycle", () => ({}));
    expect(peek("test.cycle")).toBe(first);
    expect(forget("test.cycle")).toBe(first);
    expect(peek("test.cycle")).toBeUndefined();
    expect(remember("test.cycle", () => ({}))).not.toBe(first);
    forget("test.cycle");
  });

  it("rememberValue replaces what the process sees", () => {
    remember("test.value", () => "default");
    rememberValue("test.value", "booted");
    expect(remember("test.value", () => "default")).toBe("booted");
    forget("test.value");
  });

  it("rememberPerGraph keeps a module-graph copy off globalThis", () => {
    const a = rememberPerGraph("test.graph", () => ({}));
    expect(rememberPerGraph("test.graph", () => ({}))).toBe(a);
    expect(peek("test.graph")).toBeUndefined();
  });

  it("is the only file in src/ that touches globalThis", () => {
    const root = path.resolve(import.meta.dirname, "../../src");
    // Generated code is not ours; the reference page's script sets a browser global, in a string.
    const allowed = new Set(["server/runtime/remember.ts", "app/docs/scalar.js/route.ts"]);
    const offenders = (readdirSync(root, { recursive: true, withFileTypes: true }) as import("node:fs").Dirent[])
      .filter((e) => e.isFile() && /\.(ts|tsx)$/.test(e.name))
      .map((e) => path.relative(root, path.join(e.parentPath, e.name)))
      .filter((rel) => !rel.startsWith("generated/") && !allowed.has(rel))
      .filter((rel) =>
        readFileSync(path.join(root, rel), "utf8")
          .split("\n")
          .some((line) => /\bglobalThis\b/.test(line) && !line.trim().startsWith("//")),
      );
    expect(offenders).toEqual([]);
  });
});
