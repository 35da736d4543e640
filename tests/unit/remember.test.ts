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
    remember("test.falsy", () => (created++, 0));
    expect(remember("test.falsy", () => (created++, 1))).toBe(0);
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
});
