import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@/generated/prisma/client";
import { env } from "../env";

/**
 * One Prisma client per process, over `pg`, whether the server is an external
 * PostgreSQL or the embedded PGlite behind its wire-protocol socket: one code
 * path for both. The custom server and the Next.js bundles are separate module
 * graphs, so the singleton and the resolved URL live on globalThis.
 */
const URL_KEY = Symbol.for("routekit.db.url");
const CLIENT_KEY = Symbol.for("routekit.db.client");
type Holder = { [URL_KEY]?: string; [CLIENT_KEY]?: PrismaClient };

export function setConnectionUrl(url: string): void {
  (globalThis as Holder)[URL_KEY] = url;
}

export function connectionUrl(): string {
  const url = (globalThis as Holder)[URL_KEY] ?? env().databaseUrl;
  if (!url) throw new Error("No database: DATABASE_URL is unset and the embedded database has not been started");
  return url;
}

export function db(): PrismaClient {
  const g = globalThis as Holder;
  return (g[CLIENT_KEY] ??= new PrismaClient({
    // Requests and the in-process delivery workers share it.
    adapter: new PrismaPg({ connectionString: connectionUrl(), max: 20 }),
  }));
}

export async function disconnectDb(): Promise<void> {
  const g = globalThis as Holder;
  await g[CLIENT_KEY]?.$disconnect();
  delete g[CLIENT_KEY];
}

/** Prisma's unique-constraint violation, for services that turn it into a domain error. */
export function isUniqueViolation(err: unknown): boolean {
  return err instanceof Error && (err as { code?: unknown }).code === "P2002";
}
