/**
 * The relay of `routekit listen` (docs/decisions.md §19), one per instance: the sockets connected here (as
 * sinks: this folder knows nothing of WebSockets), and the events in flight to an account's listeners
 * wherever they are. An event goes to every listener of the account, here directly and on another instance
 * through the bus (listen-bus.ts); the first answer wins, and the one who asked gets it as an HTTP answer.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { CallbackRequestError, type CallbackResponse } from "../http/callback-http-client";
import { remember } from "../../runtime/remember";
import { logger } from "../../logger";
import { type Bus, openBus, sendToInstance } from "./listen-bus";
import type { postCallStarted } from "../post-call-started";
import { webhookHeaders } from "../webhook-signature";
import { HEARTBEAT_MS, heartbeat, instancesListening, keysStillValid, removeSessions } from "./listen-presence";

/** An event as a listener receives it: the body and headers its URL would have received, byte for byte. */
export type RelayedEvent = {
  id: string;
  eventType: string;
  body: string;
  headers: Record<string, string>;
  /** How long the answer is waited for. */
  timeoutMs: number;
};
/** What the listener's local server answered, or why it could not. */
export type ListenAnswer = { status: number; contentType: string | null; body: string } | { error: string };

/** A socket connected here, as the relay sees it. */
export type ListenerSink = {
  accountId: string;
  apiKeyId: string;
  sessionId: string;
  /** Hands the event to the listener; `reply` at most once, with its answer. */
  offer(event: RelayedEvent, reply: (answer: ListenAnswer) => void): void;
  close(code: number, reason: string): void;
};

/** Close codes a listener may see (docs/api.md). */
export const CLOSE = {
  goingAway: 1001,
  keyRevoked: 4001,
  slowConsumer: 4008,
} as const;

/** How often the keys of this instance's sockets are checked: a revoked or expired key closes its socket within this. */
const KEY_CHECK_MS = 2_000;

/**
 * How long where an account's listeners are is kept: a listener connecting or leaving on another instance is
 * seen within this (on this instance, at once).
 */
const PRESENCE_TTL_MS = 1_000;
const PRESENCE_KEPT = 10_000;

type Pending = { settle(answer: ListenAnswer | null): void };
type BusMessage =
  | { t: "event"; origin: string; accountId: string; event: RelayedEvent }
  | { t: "answer"; id: string; answer: ListenAnswer };

class ListenHub {
  readonly instanceId = randomBytes(8).toString("hex");
  private readonly sinks = new Map<string, Set<ListenerSink>>();
  private readonly pending = new Map<string, Pending>();
  private bus: Bus | null = null;
  /** Where each account's listeners were a moment ago: a listen number's calls do not each read it. */
  private readonly whereListening = new Map<string, { instances: string[]; until: number }>();
  private timers: NodeJS.Timeout[] = [];

  start(): void {
    if (this.bus) return;
    this.bus = openBus(
      this.instanceId,
      (m) => this.receive(m as BusMessage),
      () => this.sinks.size > 0 || this.pending.size > 0,
    );
    const every = (ms: number, run: () => Promise<unknown>, what: string) => {
      const t = setInterval(() => {
        if (this.sinks.size) run().catch((err: unknown) => logger().warn({ err: (err as Error).message }, what));
      }, ms);
      t.unref();
      this.timers.push(t);
    };
    every(HEARTBEAT_MS, () => heartbeat(this.instanceId), "listen heartbeat failed");
    every(KEY_CHECK_MS, () => this.closeRevoked(), "listen key check failed");
  }

  attach(sink: ListenerSink): void {
    this.start();
    this.whereListening.delete(sink.accountId);
    let set = this.sinks.get(sink.accountId);
    if (!set) this.sinks.set(sink.accountId, (set = new Set()));
    set.add(sink);
  }

  detach(sink: ListenerSink): void {
    this.whereListening.delete(sink.accountId);
    const set = this.sinks.get(sink.accountId);
    set?.delete(sink);
    if (set?.size === 0) this.sinks.delete(sink.accountId);
    removeSessions([sink.sessionId]).catch((err: unknown) =>
      logger().warn({ err: (err as Error).message }, "a listener's row could not be removed; it expires"),
    );
  }

  /** Sockets whose key was revoked or expired are closed (every instance checks its own). */
  private async closeRevoked(): Promise<void> {
    const all = [...this.sinks.values()].flatMap((s) => [...s]);
    const valid = await keysStillValid([...new Set(all.map((s) => s.apiKeyId))]);
    for (const sink of all)
      if (!valid.has(sink.apiKeyId)) sink.close(CLOSE.keyRevoked, "The API key was revoked or has expired.");
  }

  /** The relay to the account's listeners, or null when none is connected on any instance. */
  async relayFor(accountId: string): Promise<((event: Omit<RelayedEvent, "id">) => Promise<ListenAnswer>) | null> {
    const known = this.whereListening.get(accountId);
    let instances = known && known.until > Date.now() ? known.instances : null;
    if (!instances) {
      instances = await instancesListening(accountId);
      if (this.whereListening.size >= PRESENCE_KEPT) this.whereListening.clear();
      this.whereListening.set(accountId, { instances, until: Date.now() + PRESENCE_TTL_MS });
    }
    if (!instances.length) return null;
    return (event) => this.relay(accountId, instances, { ...event, id: randomUUID() });
  }

  private relay(accountId: string, instances: string[], event: RelayedEvent): Promise<ListenAnswer> {
    return new Promise<ListenAnswer>((resolve, reject) => {
      const timer = setTimeout(() => settle(null), event.timeoutMs);
      const settle = (answer: ListenAnswer | null) => {
        if (!this.pending.delete(event.id)) return;
        clearTimeout(timer);
        if (answer) resolve(answer);
        else reject(new CallbackRequestError("timeout", `no listener answered within ${event.timeoutMs} ms`));
      };
      this.pending.set(event.id, { settle });
      for (const instance of instances) {
        if (instance === this.instanceId) this.offerHere(accountId, event, (a) => settle(a));
        else
          sendToInstance(instance, {
            t: "event",
            origin: this.instanceId,
            accountId,
            event,
          } satisfies BusMessage).catch((err: unknown) =>
            logger().warn({ err: (err as Error).message }, "an event could not reach a listener's instance"),
          );
      }
    });
  }

  /** The event to every socket of the account here; the first answer of them is `reply`'s. */
  private offerHere(accountId: string, event: RelayedEvent, reply: (answer: ListenAnswer) => void): void {
    let answered = false;
    for (const sink of this.sinks.get(accountId) ?? [])
      sink.offer(event, (answer) => {
        if (answered) return;
        answered = true;
        reply(answer);
      });
  }

  private receive(message: BusMessage): void {
    if (message.t === "answer") this.pending.get(message.id)?.settle(message.answer);
    else if (message.t === "event") {
      const { origin, event } = message;
      this.offerHere(message.accountId, event, (answer) => {
        sendToInstance(origin, { t: "answer", id: event.id, answer } satisfies BusMessage).catch((err: unknown) =>
          logger().warn({ err: (err as Error).message }, "a listener's answer could not reach its instance"),
        );
      });
    }
  }

  /** Shutdown: every socket closed (1001), their rows deleted, the bus closed. */
  async stop(): Promise<void> {
    const all = [...this.sinks.values()].flatMap((s) => [...s]);
    for (const sink of all) sink.close(CLOSE.goingAway, "Routekit is shutting down; reconnect.");
    this.sinks.clear();
    await removeSessions(all.map((s) => s.sessionId)).catch(() => undefined);
    for (const t of this.timers) clearInterval(t);
    await this.bus?.stop();
  }
}

export function listenHub(): ListenHub {
  return remember("listen.hub", () => new ListenHub());
}

/**
 * `call.started` of a listen number (docs/decisions.md §19): through the account's listeners when one is
 * connected, signed and answered exactly as postCallStarted's POST would be; null when none is (or the
 * database cannot say), and the URL is asked as usual.
 */
export async function listenedCallStarted(accountId: string): Promise<typeof postCallStarted | null> {
  const relay = await listenTransport(accountId).catch(() => null);
  if (!relay) return null;
  return async (opts) => {
    const body = opts.body ?? JSON.stringify(opts.event);
    return relay({
      eventType: opts.event.type,
      body,
      headers: webhookHeaders({ id: opts.event.id, body, secrets: opts.secrets }),
      timeoutMs: opts.timeoutMs ?? 5_000,
      maxResponseBytes: 64 * 1024,
    });
  };
}

/**
 * The transport a listen number's event takes (docs/decisions.md §19): through its account's listeners when
 * one is connected, answered as the URL's HTTP answer would be; null when none is, and the URL is used.
 */
export async function listenTransport(
  accountId: string,
): Promise<
  | ((req: {
      eventType: string;
      body: string;
      headers: Record<string, string>;
      timeoutMs: number;
      maxResponseBytes: number;
    }) => Promise<CallbackResponse>)
  | null
> {
  const relay = await listenHub().relayFor(accountId);
  if (!relay) return null;
  return async ({ maxResponseBytes, ...event }) => {
    const started = performance.now();
    const answer = await relay(event);
    if ("error" in answer)
      throw new CallbackRequestError("connection", `the listener could not forward the event: ${answer.error}`);
    const bytes = Buffer.from(answer.body, "utf8");
    const truncated = bytes.length > maxResponseBytes;
    return {
      status: answer.status,
      headers: answer.contentType ? { "content-type": answer.contentType } : ({} as Record<string, string>),
      body: truncated ? bytes.subarray(0, maxResponseBytes).toString("utf8") : answer.body,
      truncated,
      durationMs: performance.now() - started,
      remoteAddress: "listen",
    };
  };
}
