import { randomBytes } from "node:crypto";
import { mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { env } from "../env";
import type { MailMessage, OutboxEntry } from "./mail-message";

/**
 * Without SMTP_URL (a local development box) mail is written here, one JSON
 * file per message under DATA_DIR/outbox, and listed by /dev/outbox. The
 * directory belongs to this deployment's DATA_DIR, so no other deployment's
 * mail is ever shown.
 */
export function outboxDir(): string {
  return path.join(env().dataDir, "outbox");
}

export async function writeToOutbox(from: string, message: MailMessage): Promise<OutboxEntry> {
  const createdAt = new Date();
  // Sortable by time, then unique.
  const id = `${createdAt.getTime().toString().padStart(15, "0")}-${randomBytes(6).toString("hex")}`;
  const entry: OutboxEntry = { id, from, createdAt: createdAt.toISOString(), ...message };
  await mkdir(outboxDir(), { recursive: true, mode: 0o700 });
  await writeFile(path.join(outboxDir(), `${id}.json`), JSON.stringify(entry, null, 2), { mode: 0o600 });
  return entry;
}

/** Newest first, at most `limit`. */
export async function listOutbox(limit = 50): Promise<OutboxEntry[]> {
  let names: string[];
  try {
    names = await readdir(outboxDir());
  } catch {
    return [];
  }
  const newest = names
    .filter((n) => /^\d{15}-[0-9a-f]{12}\.json$/.test(n))
    .sort()
    .reverse()
    .slice(0, limit);
  const entries = await Promise.all(
    newest.map(async (n) => JSON.parse(await readFile(path.join(outboxDir(), n), "utf8")) as OutboxEntry),
  );
  return entries;
}
