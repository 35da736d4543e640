import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { startPgliteWireServer } from "./pglite-wire-server";

export type EmbeddedPostgres = { url: string; stop(): Promise<void> };

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * PGlite under DATA_DIR, served over the PostgreSQL wire protocol on a loopback
 * port, so Prisma's `pg` adapter (and later the job queue) work exactly as on a
 * real server. Its URL is written to DATA_DIR/embedded-postgres.url so `psql`
 * can inspect a running service. One process per data directory: PGlite has no
 * lock of its own and two writers would corrupt it.
 */
export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  mkdirSync(dataDir, { recursive: true });
  const lockFile = path.join(dataDir, "pglite.pid");
  if (existsSync(lockFile)) {
    const pid = Number(readFileSync(lockFile, "utf8"));
    if (pid && pid !== process.pid && isAlive(pid)) {
      throw new Error(
        `The embedded database in ${dataDir} is in use by process ${pid}; stop it or set DATA_DIR to another folder`,
      );
    }
  }
  writeFileSync(lockFile, String(process.pid));

  const pg = await PGlite.create(path.join(dataDir, "pglite"));
  const server = await startPgliteWireServer(pg, { host: "127.0.0.1", port: 0 });
  const url = `postgresql://postgres:postgres@${server.host}:${server.port}/postgres?sslmode=disable`;
  const urlFile = path.join(dataDir, "embedded-postgres.url");
  writeFileSync(urlFile, `${url}\n`);

  return {
    url,
    async stop() {
      await server.close();
      await pg.close();
      rmSync(urlFile, { force: true });
      rmSync(lockFile, { force: true });
    },
  };
}
