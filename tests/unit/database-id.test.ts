import { describe, expect, it } from "vitest";
import { newDatabaseId } from "../../src/server/db/database-id";

describe("newDatabaseId", () => {
  it("has routekit_id()'s shape, sorts by creation and never repeats, across refills of its pool", () => {
    // 1,000 ids take about 15,000 bytes: the 4 KiB pool is refilled a few times.
    const ids = Array.from({ length: 1_000 }, newDatabaseId);
    for (const id of ids) expect(id).toMatch(/^c[0-9a-z]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it("carries the time in microseconds in its first ten digits, as routekit_id() does", () => {
    const before = Date.now();
    const micros = Number.parseInt(newDatabaseId().slice(1, 11), 36);
    expect(micros / 1000).toBeGreaterThanOrEqual(before);
    expect(micros / 1000).toBeLessThan(Date.now() + 1_000);
  });

  it("spreads its random digits over all 36", () => {
    const seen = new Set(Array.from({ length: 200 }, newDatabaseId).flatMap((id) => [...id.slice(11)]));
    expect(seen.size).toBe(36);
  });
});
