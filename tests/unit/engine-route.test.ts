import { describe, expect, it } from "vitest";
import { cuid } from "../../src/server/db/cuid";
import { engineToken } from "../../src/server/engine/engine-route";

describe("engineToken", () => {
  it("takes the routing token from an engine URL, with or without a query or trailing slash", () => {
    expect(engineToken("/api/engine/voice/rt_abc-DEF_1")).toBe("rt_abc-DEF_1");
    expect(engineToken("/api/engine/voice/rt_abc?call=c123")).toBe("rt_abc");
    expect(engineToken("/api/engine/voice/rt_abc/")).toBe("rt_abc");
    expect(engineToken("/api/engine/voice/rt%5Fabc")).toBe("rt_abc");
  });

  it("is null for anything else, including deeper paths and bad percent-encoding", () => {
    expect(engineToken("/api/engine/voice/")).toBeNull();
    expect(engineToken("/api/engine/voice/rt_abc/extra")).toBeNull();
    expect(engineToken("/api/engine/voic/rt_abc")).toBeNull();
    expect(engineToken("/api/engine/voice/%E0%A4%A")).toBeNull();
    expect(engineToken(undefined)).toBeNull();
  });
});

describe("cuid", () => {
  it("makes Prisma-shaped ids: 25 lowercase base-36 characters starting with c", () => {
    for (let i = 0; i < 100; i++) expect(cuid()).toMatch(/^c[0-9a-z]{24}$/);
  });

  it("never repeats in a burst", () => {
    const ids = new Set(Array.from({ length: 50_000 }, () => cuid()));
    expect(ids.size).toBe(50_000);
  });

  it("sorts by creation time across milliseconds", async () => {
    const first = cuid();
    await new Promise((r) => setTimeout(r, 5));
    expect(cuid().slice(0, 9) > first.slice(0, 9)).toBe(true);
  });
});
