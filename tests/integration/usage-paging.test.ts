import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { newActiveAccount, seed, type TestAccount } from "../support/api";

/** Usage records as the engine leaves them, at chosen times (paging is what is under test). */
async function addUsage(acct: TestAccount, at: Date[]): Promise<void> {
  for (const createdAt of at) {
    // Random ids, so ties on createdAt are broken in an order other than the inserts'.
    await seed("permissive").usageRecord({ id: `u${randomBytes(10).toString("hex")}`, accountId: acct.id, createdAt });
  }
}

describe("GET /api/usage with a cursor", () => {
  describe("happy", () => {
    it("pages through every record once, newest first, while new usage arrives", async () => {
      const acct = await newActiveAccount({ server: "permissive" });
      const base = Date.now() - 3600_000;
      // 23 records, with ties on createdAt (the id breaks them).
      await addUsage(
        acct,
        Array.from({ length: 23 }, (_, i) => new Date(base + Math.floor(i / 3) * 1000)),
      );
      const expected = (await acct.as("GET", "/api/usage?limit=100")).body.records.map((r: { id: string }) => r.id);
      expect(expected).toHaveLength(23);

      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res: { status: number; body: { records: { id: string }[]; nextCursor: string | null; offset: number } } =
          await acct.as("GET", `/api/usage?limit=5${cursor ? `&cursor=${cursor}` : ""}`);
        expect(res.status).toBe(200);
        expect(res.body.offset).toBe(0);
        seen.push(...res.body.records.map((r) => r.id));
        cursor = res.body.nextCursor;
        pages++;
        // New calls end between pages: they are newer than any cursor, so they never shift a page.
        await addUsage(acct, [new Date()]);
      } while (cursor);
      expect(pages).toBe(5);
      expect(seen).toEqual(expected);
    });

    it("nextCursor is null on the last page, also when it is exactly full; offset still pages", async () => {
      const acct = await newActiveAccount({ server: "permissive" });
      await addUsage(
        acct,
        Array.from({ length: 4 }, (_, i) => new Date(Date.now() - i * 1000)),
      );
      const first = await acct.as("GET", "/api/usage?limit=2");
      expect(first.body.nextCursor).toEqual(expect.any(String));
      const last = await acct.as("GET", `/api/usage?limit=2&cursor=${first.body.nextCursor}`);
      expect(last.body.records).toHaveLength(2);
      expect(last.body.nextCursor).toBeNull();
      const byOffset = await acct.as("GET", "/api/usage?limit=2&offset=2");
      expect(byOffset.body.records).toEqual(last.body.records);
      expect(byOffset.body).toMatchObject({ offset: 2, nextCursor: null });
    });
  });

  describe("error", () => {
    it("cursor with offset, or a cursor the API did not make, is 400", async () => {
      const acct = await newActiveAccount({ server: "permissive" });
      await addUsage(acct, [new Date(Date.now() - 2000), new Date(Date.now() - 1000)]);
      const cursor = (await acct.as("GET", "/api/usage?limit=1")).body.nextCursor;
      const both = await acct.as("GET", `/api/usage?cursor=${cursor}&offset=0`);
      expect(both.status).toBe(400);
      expect(both.body.error).toMatchObject({ code: "VALIDATION_FAILED", details: [{ path: "offset" }] });
      for (const bad of ["garbage", "", "%E2%9C%93"]) {
        const res = await acct.as("GET", `/api/usage?cursor=${bad}`);
        expect(res.status, bad).toBe(400);
        expect(res.body.error.code).toBe("VALIDATION_FAILED");
      }
    });
  });

  describe("security", () => {
    it("another account's records are never reached through a cursor", async () => {
      const a = await newActiveAccount({ server: "permissive" });
      const b = await newActiveAccount({ server: "permissive" });
      await addUsage(a, [new Date(Date.now() - 2000), new Date(Date.now() - 1000)]);
      const cursor = (await a.as("GET", "/api/usage?limit=1")).body.nextCursor;
      const res = await b.as("GET", `/api/usage?cursor=${cursor}`);
      expect(res.status).toBe(200);
      expect(res.body.records).toHaveLength(0);
    });
  });
});
