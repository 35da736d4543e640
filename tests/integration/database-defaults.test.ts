// Ids and timestamps come from the database (prisma/migrations/*_timestamptz_and_database_ids):
// a plain insert names neither, through Kysely or by hand, and every timestamp is an instant.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kysely } from "../../src/server/db/kysely";
import { newAccount, sql, seed } from "../support/api";
import { startInProcess } from "../support/in-process";

let inProcess: Awaited<ReturnType<typeof startInProcess>>;
beforeAll(async () => {
  inProcess = await startInProcess();
});
afterAll(async () => {
  await inProcess.stop();
});

const CUID_SHAPE = /^c[0-9a-z]{24}$/;

describe("database defaults", () => {
  it("give a Kysely insert its id, createdAt and updatedAt, in the shape Prisma's ids had", async () => {
    const account = await newAccount({ server: "permissive" });
    const before = Date.now();
    const rows = [];
    for (const path of ["/a", "/b", "/c"]) {
      rows.push(
        await kysely()
          .insertInto("WebhookDelivery")
          .values({
            accountId: account.id,
            eventId: `evt_defaults${path.slice(1)}`,
            eventType: "call.ended",
            url: `https://example.com${path}`,
            payload: "{}",
          })
          .returning(["id", "createdAt", "updatedAt", "status"])
          .executeTakeFirstOrThrow(),
      );
    }
    for (const row of rows) {
      expect(row.id).toMatch(CUID_SHAPE);
      expect(row.createdAt).toBeInstanceOf(Date);
      // An instant, not a wall time read in some zone: within the seconds of this test.
      expect(row.createdAt.getTime()).toBeGreaterThanOrEqual(before - 2_000);
      expect(row.createdAt.getTime()).toBeLessThanOrEqual(Date.now() + 2_000);
      expect(row.updatedAt.getTime()).toBe(row.createdAt.getTime());
      expect(row.status).toBe("PENDING");
    }
    // Ids sort by creation, so they break ties of createdAt in keyset paging the way cuids did.
    expect([...rows.map((r) => r.id)].sort()).toEqual(rows.map((r) => r.id));
    expect(new Set(rows.map((r) => r.id)).size).toBe(3);
  });

  it("give an insert from outside the app (a test's seed, an operator's psql) the same, and Prisma's creates too", async () => {
    const account = await newAccount({ server: "permissive" });
    const key = await seed("permissive").apiKey({ accountId: account.id, keyPrefix: "rtk_defaults" });
    expect(key.id).toMatch(CUID_SHAPE);
    expect(Math.abs(key.createdAt.getTime() - Date.now())).toBeLessThan(5_000);
    // The account itself was created by Prisma, which now leaves the id to the database.
    expect(account.id).toMatch(CUID_SHAPE);
  });

  it("keep every timestamp as timestamptz", async () => {
    const { rows } = await sql("permissive").query<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.columns
       WHERE table_schema = current_schema() AND data_type = 'timestamp without time zone' AND table_name <> '_prisma_migrations'`,
    );
    expect(rows).toEqual([]);
  });
});
