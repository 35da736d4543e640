import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

describe("one transaction style: Kysely's sqlTransaction", () => {
  const root = path.resolve(import.meta.dirname, "../../src");
  // Prisma's interactive and batch transactions both go through `$transaction`; CONTRIBUTING.md#kysely-or-prisma.
  const PRISMA_TRANSACTION = /\$transaction\b/;

  function sources(dir: string): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === "generated" ? [] : sources(full);
      return /\.(ts|tsx|mts)$/.test(entry.name) ? [full] : [];
    });
  }
  const files = sources(root).map((file) => ({
    name: path.relative(root, file).split(path.sep).join("/"),
    text: readFileSync(file, "utf8"),
  }));

  it("the pattern catches both Prisma forms", () => {
    expect(PRISMA_TRANSACTION.test("await db().$transaction(async (tx) => {")).toBe(true);
    expect(PRISMA_TRANSACTION.test("await db().$transaction([")).toBe(true);
    expect(PRISMA_TRANSACTION.test("await sqlTransaction(async (trx) => {")).toBe(false);
  });

  it("no file under src/ opens a Prisma transaction", () => {
    const offenders = files.filter((f) => PRISMA_TRANSACTION.test(f.text)).map((f) => f.name);
    expect(offenders).toEqual([]);
  });

  it("the walk read the services that do open transactions, so an empty walk cannot pass", () => {
    const users = files.filter((f) => /\bsqlTransaction\(/.test(f.text)).map((f) => f.name);
    expect(users).toContain("server/services/accounts/register-account.ts");
    expect(users).toContain("server/services/billing/stripe-events/apply-stripe-event.ts");
    expect(users.length).toBeGreaterThanOrEqual(13);
  });
});
