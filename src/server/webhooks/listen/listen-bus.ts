/**
 * Messages between instances about listeners (docs/decisions.md §19), through PostgreSQL only. A message that
 * fits a NOTIFY payload (which stops at 8000 bytes) is the payload of a NOTIFY on its instance's channel: one
 * statement, and nothing to read back. A larger one is a row addressed to its instance, and an empty NOTIFY in
 * the same statement wakes it; the instance takes its rows by deleting them, on each empty notification and on
 * a slow poll that covers one lost while its connection was being re-made. On the
 * embedded database (one instance, PGlite behind its wire server) nothing is addressed to another instance,
 * and no LISTEN connection is opened: a poll alone serves, should anything ever arrive.
 */
import pg from "pg";
import { sql } from "kysely";
import { connectionUrl } from "../../db/client";
import { kysely } from "../../db/kysely";
import { env } from "../../env";
import { logger } from "../../logger";

/** With a LISTEN connection, a poll only catches what a reconnect missed; without one it is the transport. */
const POLL_WITH_NOTIFY_MS = 1_000;
const POLL_WITHOUT_NOTIFY_MS = 50;
const RECONNECT_MS = 1_000;

const channelOf = (instanceId: string) => `routekit_listen_${instanceId}`;

/** Below NOTIFY's 8000 bytes, with room for the channel's name. */
const NOTIFY_MAX_BYTES = 7_800;

/** One message to another instance: in its NOTIFY when it fits, else its row and the NOTIFY that wakes it. */
export async function sendToInstance(instanceId: string, message: object): Promise<void> {
  const payload = JSON.stringify(message);
  if (Buffer.byteLength(payload) <= NOTIFY_MAX_BYTES) {
    await sql`select pg_notify(${channelOf(instanceId)}, ${payload})`.execute(kysely());
    return;
  }
  await sql`with m as (insert into "ListenMessage" ("instanceId", "payload") values (${instanceId}, ${payload}) returning id)
    select pg_notify(${channelOf(instanceId)}, '') from m`.execute(kysely());
}

export type Bus = { stop(): Promise<void> };

/**
 * This instance's inbox: `receive` gets each message addressed to it, in order. `wanted` says whether anyone
 * here could be waiting for one (a listener connected, a relay pending): otherwise no poll runs at all.
 */
export function openBus(instanceId: string, receive: (message: unknown) => void, wanted: () => boolean): Bus {
  const log = logger();
  let stopped = false;
  let client: pg.Client | null = null;
  let taking = false;
  let again = false;
  const notify = !!env().databaseUrl;

  const take = async () => {
    if (taking) {
      again = true;
      return;
    }
    taking = true;
    try {
      do {
        again = false;
        const rows = await kysely()
          .deleteFrom("ListenMessage")
          .where("instanceId", "=", instanceId)
          .returning(["id", "payload"])
          .execute();
        rows.sort((a, b) => Number(a.id) - Number(b.id));
        for (const r of rows) {
          try {
            receive(JSON.parse(r.payload));
          } catch (err) {
            log.warn({ err }, "a listen message could not be handled");
          }
        }
      } while (again && !stopped);
    } catch (err) {
      log.warn({ err: (err as Error).message }, "listen messages could not be read; trying again");
    } finally {
      taking = false;
    }
  };

  const reconnectLater = () => {
    if (!stopped) setTimeout(() => void connect(), RECONNECT_MS).unref();
  };
  const connect = async () => {
    if (stopped || !notify) return;
    const c = new pg.Client({ connectionString: connectionUrl(), keepAlive: true });
    c.on("error", (err) => log.debug({ err: err.message }, "the listen connection failed"));
    c.on("notification", (n) => {
      if (!n.payload) return void take();
      try {
        receive(JSON.parse(n.payload));
      } catch (err) {
        log.warn({ err }, "a listen message could not be handled");
      }
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${channelOf(instanceId)}`);
    } catch (err) {
      log.warn({ err: (err as Error).message }, "the listen connection could not be made; retrying");
      c.end().catch(() => undefined);
      reconnectLater();
      return;
    }
    client = c;
    c.once("end", () => {
      if (client === c) client = null;
      reconnectLater();
    });
    // What arrived while no connection listened.
    void take();
  };
  void connect();

  const poll = setInterval(
    () => {
      if (wanted()) void take();
    },
    notify ? POLL_WITH_NOTIFY_MS : POLL_WITHOUT_NOTIFY_MS,
  );
  poll.unref();

  return {
    async stop() {
      stopped = true;
      clearInterval(poll);
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
    },
  };
}
