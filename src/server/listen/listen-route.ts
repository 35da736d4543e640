/**
 * `GET /api/listen`, the socket of `routekit listen` (docs/decisions.md §19, docs/api.md): an API key with
 * `write` upgrades it; the relay (webhooks/listen/listen-hub.ts) then sends the account's listen numbers'
 * events down it and takes their answers back. What is refused is refused before the upgrade, as an HTTP
 * answer in the error envelope. A socket's queue is bounded: a listener that falls behind is closed.
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type RawData, WebSocket, WebSocketServer } from "ws";
import { z } from "zod";
import { authenticate } from "../auth/authenticate";
import { AppError } from "../errors/app-error";
import { toErrorResponse } from "../errors/to-error-response";
import { refuseUpgrade } from "../http/client-error";
import { logger } from "../logger";
import { authorize } from "../trpc/init";
import { addSession, removeSessions } from "../webhooks/listen/listen-presence";
import {
  CLOSE,
  type ListenAnswer,
  type ListenerSink,
  type RelayedEvent,
  listenHub,
} from "../webhooks/listen/listen-hub";

const LISTEN_PATH = "/api/listen";
/** Listeners an account may have connected at once, over every instance. */
const LISTENERS_PER_ACCOUNT = 10;
/** Events sent to one socket and not yet answered; one more closes it (4008). */
const MAX_UNANSWERED = 100;
/** Bytes queued on one socket's connection; past this it is closed (4008). */
const MAX_BUFFERED_BYTES = 1024 * 1024;
/** The largest message a listener may send: an answer of up to 64 KiB and its envelope. */
const MAX_MESSAGE_BYTES = 256 * 1024;
const PING_MS = 15_000;

const answerMessage = z.object({
  type: z.literal("answer"),
  id: z.string().max(100),
  status: z.number().int().min(100).max(599).optional(),
  contentType: z.string().max(200).nullable().optional(),
  body: z
    .string()
    .max(128 * 1024)
    .optional(),
  error: z.string().max(1000).optional(),
});

export function isListenUpgrade(req: IncomingMessage): boolean {
  const path = (req.url ?? "").split("?")[0];
  return path === LISTEN_PATH;
}

const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });

/** An upgrade to `GET /api/listen`: authenticated, authorised, counted, then accepted. */
export async function serveListenUpgrade(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  headers: Record<string, string>,
): Promise<void> {
  let sessionId: string | null = null;
  try {
    if (req.method !== "GET") throw new AppError("METHOD_NOT_ALLOWED", "Open the listen socket with GET.");
    const authorization = req.headers.authorization ?? null;
    if (!authorization || !/^Bearer\s+rtk_/i.test(authorization))
      throw new AppError("UNAUTHORIZED", "Send `Authorization: Bearer <API key>`: the listen socket takes an API key.");
    const auth = await authenticate(authorization);
    // The one permission check (docs/decisions.md §18): `write`, so a read-only key is refused.
    authorize(auth, { needs: "write" });
    const hub = listenHub();
    sessionId = await addSession({
      accountId: auth.account.id,
      instanceId: hub.instanceId,
      apiKeyId: auth.apiKeyId!,
      cap: LISTENERS_PER_ACCOUNT,
    });
    if (!sessionId)
      throw new AppError(
        "RATE_LIMITED",
        `This account has ${LISTENERS_PER_ACCOUNT} listeners connected, the most it may; stop one to start another.`,
      );
    const id = sessionId;
    if (!socket.writable) throw new Error("the client left before the upgrade");
    sockets.handleUpgrade(req, socket, head, (ws) =>
      accept(ws, { accountId: auth.account.id, apiKeyId: auth.apiKeyId!, sessionId: id }),
    );
  } catch (err) {
    if (sessionId) await removeSessions([sessionId]).catch(() => undefined);
    const mapped = toErrorResponse(err);
    if (mapped.unexpected) logger().error({ err }, "the listen socket could not be opened");
    refuseUpgrade(socket, mapped, headers);
  }
}

function accept(ws: WebSocket, who: { accountId: string; apiKeyId: string; sessionId: string }): void {
  const hub = listenHub();
  const unanswered = new Map<string, { reply: (a: ListenAnswer) => void; timer: NodeJS.Timeout }>();
  let closed = false;
  const close = (code: number, reason: string) => {
    if (closed) return;
    closed = true;
    ws.close(code, reason);
    // A peer that never answers the close is cut after a second.
    setTimeout(() => ws.terminate(), 1_000).unref();
  };
  const sink: ListenerSink = {
    ...who,
    offer(event: RelayedEvent, reply) {
      if (closed || ws.readyState !== WebSocket.OPEN) return;
      if (unanswered.size >= MAX_UNANSWERED || ws.bufferedAmount > MAX_BUFFERED_BYTES) {
        close(CLOSE.slowConsumer, `Too slow: ${unanswered.size} events unanswered; reconnect when ready.`);
        return;
      }
      // Past its timeout nobody waits for the answer: the slot is freed.
      const timer = setTimeout(() => unanswered.delete(event.id), event.timeoutMs + 1_000);
      timer.unref();
      unanswered.set(event.id, { reply, timer });
      ws.send(JSON.stringify({ type: "event", ...event }));
    },
    close,
  };
  let alive = true;
  const ping = setInterval(() => {
    if (!alive) return ws.terminate();
    alive = false;
    ws.ping();
  }, PING_MS);
  ping.unref();
  ws.on("pong", () => {
    alive = true;
  });
  ws.on("message", (data: RawData) => {
    let message: z.infer<typeof answerMessage>;
    try {
      message = answerMessage.parse(JSON.parse(data.toString()));
    } catch {
      return close(
        1008,
        'Messages are {type: "answer", id, status, contentType, body} or {type: "answer", id, error}.',
      );
    }
    const waiting = unanswered.get(message.id);
    if (!waiting) return;
    unanswered.delete(message.id);
    clearTimeout(waiting.timer);
    waiting.reply(
      message.error !== undefined || message.status === undefined
        ? { error: message.error ?? "no status" }
        : { status: message.status, contentType: message.contentType ?? null, body: message.body ?? "" },
    );
  });
  ws.on("close", () => {
    closed = true;
    clearInterval(ping);
    for (const { timer } of unanswered.values()) clearTimeout(timer);
    unanswered.clear();
    hub.detach(sink);
  });
  ws.on("error", (err) => logger().debug({ err: err.message }, "a listen socket failed"));
  hub.attach(sink);
  ws.send(JSON.stringify({ type: "ready", listenerId: who.sessionId, accountId: who.accountId }));
}
