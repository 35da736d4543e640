import { describe, expect, it } from "vitest";
import { newEventId } from "../../src/server/webhooks/event-envelope";

describe("newEventId", () => {
  it("gives 128 random bits per id, never the same twice, across refills of its pool", () => {
    // 1,000 ids use the 4 KiB pool almost four times over.
    const ids = Array.from({ length: 1_000 }, newEventId);
    for (const id of ids) expect(id).toMatch(/^evt_[A-Za-z0-9_-]{22}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
