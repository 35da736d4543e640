import { createHash, randomBytes } from "node:crypto";
import type { CallCommand, Prisma } from "@/generated/prisma/client";
import type { Kysely } from "kysely";
import { type DB, kysely } from "../../../db/kysely";
import { sqlTransaction } from "../../../db/sql-transaction";
import type { AuditAction } from "../../../../shared/schemas/audit-log";
import { type AuditOrigin, recordAudit } from "../../audit/record-audit";
import { twilioRestClient } from "../../../integrations/twilio/twilio-rest-client";
import { toProviderError } from "../../../integrations/twilio/twilio-provider-error";
import { logger } from "../../../logger";
import type { ControlTarget } from "./control-target";

export type Command =
  | "hangup"
  | "redirect"
  | "transfer"
  | "recording.start"
  | "recording.pause"
  | "recording.resume"
  | "recording.stop";

/** Who sent a command, as the timeline shows it: the API key's prefix, or `dashboard` for a login session. */
export function actorOf(auth: { via: "apiKey" | "jwt" }, authorization: string | null): string {
  if (auth.via !== "apiKey") return "dashboard";
  const key = /^Bearer\s+(\S+)/i.exec(authorization ?? "")?.[1] ?? "";
  // docs/decisions.md §5: keyPrefix is the key's first 12 characters.
  return key.slice(0, 12) || "api-key";
}

/** docs/decisions.md §18: each command as the audit log names it. */
const AUDIT_ACTION_OF: Record<Command, AuditAction> = {
  hangup: "call.hung_up",
  redirect: "call.redirected",
  transfer: "call.transfer_started",
  "recording.start": "call.recording_started",
  "recording.pause": "call.recording_paused",
  "recording.resume": "call.recording_resumed",
  "recording.stop": "call.recording_stopped",
};

export function newCommandId(): string {
  return `cmd_${randomBytes(12).toString("hex")}`;
}

type TwilioClient = ReturnType<typeof twilioRestClient>;

/**
 * One SDK client per set of credentials, kept while it is used: building one per command cost a few
 * milliseconds and a new connection to Twilio each time (its HTTP agent keeps connections alive).
 * Keyed by the token's hash, never the token; the oldest is dropped past the cap.
 */
const clients = new Map<string, TwilioClient>();
const MAX_CLIENTS = 500;
function clientFor(accountSid: string, authToken: string): TwilioClient {
  const key = `${accountSid}:${createHash("sha256").update(authToken).digest("base64url")}`;
  let client = clients.get(key);
  if (client) {
    clients.delete(key);
  } else {
    client = twilioRestClient(accountSid, authToken);
    if (clients.size >= MAX_CLIENTS) clients.delete(clients.keys().next().value as string);
  }
  clients.set(key, client);
  return client;
}

/** A command's timeline row as runCommand wrote it (the `{ call }` answers show it without reading it back). */
export type CommandEntry = Omit<CallCommand, "result" | "resultAt" | "details"> & { details: Prisma.JsonValue };

/**
 * Sends one command to Twilio through the official SDK on the call's credentials and records it in the
 * call's timeline (docs/decisions.md §13): who, what, Twilio's answer, Twilio's time and Routekit's own.
 * A refusal is 400 PROVIDER_REJECTED with Twilio's code and message; no answer (or a 5xx) is 502.
 * `startedAt` is when the request reached the procedure (performance.now()): Routekit's own time is
 * everything from then but Twilio's round trip. Once Twilio has done it, `alongside` (what the command
 * still has to write or read for its answer) runs side by side with the timeline's write: neither waits
 * for the other.
 */
export async function runCommand<T, A = undefined>(opts: {
  target: ControlTarget;
  actor: string;
  /** Who, for the audit log: a command Twilio carried out is a change to the account (docs/decisions.md §18). */
  origin: AuditOrigin;
  command: Command;
  startedAt: number;
  /** What the audit entry says of the command beyond its call (never TwiML: it may carry the customer's data). */
  auditDetails?: Record<string, unknown>;
  id?: string;
  details?: Record<string, unknown>;
  /**
   * Record the command before Twilio is asked: for commands whose callbacks name it (a transfer's dial
   * result, a recording's status), which may reach the engine before Twilio's answer reaches us.
   */
  recordFirst?: boolean;
  send: (client: TwilioClient, callSid: string) => Promise<T>;
  alongside?: (answer: T, entry: CommandEntry) => Promise<A>;
}): Promise<{ answer: T; alongside: A }> {
  const { target } = opts;
  const id = opts.id ?? newCommandId();
  const details = (opts.details ?? null) as Prisma.JsonValue;
  if (opts.recordFirst) {
    await kysely()
      .insertInto("CallCommand")
      .values({
        id,
        callId: target.call.id,
        accountId: target.call.accountId,
        actor: opts.actor,
        command: opts.command,
        outcome: "pending",
        providerMs: 0,
        ownMs: 0,
        details: details === null ? null : JSON.stringify(details),
      })
      .execute();
  }
  const client = clientFor(target.creds.accountSid, target.creds.authToken);
  const sentAt = performance.now();
  let answer: T | undefined;
  let failure: unknown = null;
  try {
    answer = await opts.send(client, target.call.callSid);
  } catch (err) {
    failure = err;
  }
  const answeredAt = performance.now();
  const providerMs = Math.round(answeredAt - sentAt);
  const e = (failure ?? {}) as { status?: unknown; code?: unknown; message?: unknown };
  const refused = failure !== null && typeof e.status === "number" && e.status >= 400 && e.status < 500;
  const outcome = {
    outcome: failure === null ? "ok" : refused ? "refused" : "unavailable",
    providerStatus: failure === null ? 200 : typeof e.status === "number" ? e.status : null,
    providerCode: typeof e.code === "number" ? e.code : null,
    providerMessage: failure === null ? null : typeof e.message === "string" ? e.message.slice(0, 1024) : null,
    providerMs,
    ownMs: Math.max(0, Math.round(answeredAt - opts.startedAt) - providerMs),
  };
  const entry: CommandEntry = {
    id,
    callId: target.call.id,
    accountId: target.call.accountId,
    at: new Date(),
    actor: opts.actor,
    command: opts.command,
    ...outcome,
    details,
  };
  // The row made before Twilio was asked gets its outcome, or the whole row is written now; a command
  // Twilio carried out gets its audit entry in the same transaction.
  const writeTimeline = (q: Kysely<DB>) =>
    opts.recordFirst
      ? q.updateTable("CallCommand").set(outcome).where("id", "=", id).execute()
      : q
          .insertInto("CallCommand")
          .values({ ...entry, details: details === null ? null : JSON.stringify(details) })
          .execute();
  const written = (
    failure !== null
      ? writeTimeline(kysely())
      : sqlTransaction(async (trx) => {
          await writeTimeline(trx);
          await recordAudit(trx, {
            accountId: target.call.accountId,
            origin: opts.origin,
            action: AUDIT_ACTION_OF[opts.command],
            target: { type: "call", id: target.call.callSid },
            details: { commandId: id, ...opts.auditDetails },
          });
        })
  ).catch((err: unknown) => {
    // The command happened at Twilio whatever became of its timeline row; the answer says what Twilio did.
    logger().error({ err, callSid: target.call.callSid, command: opts.command }, "could not record a call command");
  });
  if (failure !== null) {
    await written;
    throw toProviderError(failure, `${opts.command} call ${target.call.callSid}`);
  }
  const [, also] = await Promise.all([written, opts.alongside?.(answer as T, entry)]);
  return { answer: answer as T, alongside: also as A };
}
