/**
 * A number's shadow backend on real calls (docs/decisions.md §23). decideCall (ask-backend.ts) starts the
 * shadow's `call.started` at the moment it asks the primary, and nothing on the answer's path waits for it:
 * the request is not awaited, and once both answers are in, the comparison and its record are queued and
 * written after the answer, in batches (like call-log.ts).
 *
 * Bounds: at most SHADOW_IN_FLIGHT_MAX shadow requests in flight per account, counted per instance (each
 * instance keeps its own count, so N instances may have up to N × 10 in flight for one account). Past it
 * the call is not mirrored and counted as skipped: a running count per number and UTC day, added up in
 * memory and written with the next batch, never a row per skipped call. `sampleRate` mirrors that share
 * of calls; an `until` in the past mirrors nothing (neither is counted as skipped).
 */
import { logger } from "../logger";
import { remember } from "../runtime/remember";
import type { EngineAccount, EngineCall } from "../services/calls/call-row";
import { compareAnswers } from "../services/answers/compare-twiml";
import { askSecondBackend, type SecondAnswer } from "../services/shadow/ask-second-backend";
import {
  recordShadowResults,
  type PrimarySide,
  type ShadowResult,
  type ShadowSkips,
} from "../services/shadow/record-shadow";
import { utcDay } from "../services/usage/usage-periods";
import { buildEvent, type EventData, type EventEnvelope } from "../webhooks/event-envelope";
import { shadowDto } from "../../shared/schemas/shadow";
import { countPendingWrites, writeLater } from "./write-later";

/** docs/decisions.md §23: shadow requests in flight per account (per instance, see above). */
const SHADOW_IN_FLIGHT_MAX = 10;
const BATCH_MAX = 100;
const LINGER_MS = 25;

type ShadowState = {
  inFlight: Map<string, number>;
  queued: ShadowResult[];
  skips: Map<string, ShadowSkips>;
  lingering: NodeJS.Timeout | null;
  writing: boolean;
};
const state = remember<ShadowState>("engine.shadow", () => ({
  inFlight: new Map(),
  queued: [],
  skips: new Map(),
  lingering: null,
  writing: false,
}));

/** A shadow request on its way: settle it with the primary's side once that is known. */
export type ShadowRun = { settle(primary: PrimarySide): void };

/**
 * Sends the call's `call.started` to the number's shadow, if it has one that mirrors this call: a new
 * event (its own webhook-id, `data.shadow = true`) signed with the same secrets, with the primary's
 * timeout. Returns at once; never throws. Null when the call is not mirrored.
 */
export function startShadow(opts: {
  shadow: unknown;
  account: EngineAccount;
  call: EngineCall;
  event: EventEnvelope;
  secrets: string[];
  timeoutMs: number;
  receivedAt: Date;
}): ShadowRun | null {
  const shadow = shadowDto(opts.shadow);
  const phoneNumberId = opts.call.phoneNumberId;
  if (!shadow || !phoneNumberId || opts.call.direction !== "inbound") return null;
  if (shadow.until !== null && Date.parse(shadow.until) <= Date.now()) return null;
  if (shadow.sampleRate < 1 && !(Math.random() < shadow.sampleRate)) return null;
  const accountId = opts.account.id;
  const s = state;
  const flying = s.inFlight.get(accountId) ?? 0;
  if (flying >= SHADOW_IN_FLIGHT_MAX) {
    noteSkip(phoneNumberId, accountId);
    return null;
  }
  s.inFlight.set(accountId, flying + 1);
  const event = buildEvent("call.started", { ...(opts.event.data as EventData), shadow: true });
  const payload = JSON.stringify(event);
  const url = shadow.onCallStartUrl;
  const answered: Promise<SecondAnswer> = askSecondBackend({
    url,
    event,
    body: payload,
    secrets: opts.secrets,
    timeoutMs: opts.timeoutMs,
  }).finally(() => {
    const n = (s.inFlight.get(accountId) ?? 1) - 1;
    if (n > 0) s.inFlight.set(accountId, n);
    else s.inFlight.delete(accountId);
  });
  return {
    settle(primary) {
      answered.then(
        (answer) =>
          queue({
            kind: "shadow",
            accountId,
            phoneNumberId,
            callSid: opts.call.callSid,
            startedAt: opts.receivedAt,
            url,
            event,
            payload,
            answer,
            primary,
            outcome: compareAnswers(primary, answer),
          }),
        (err: unknown) =>
          logger().warn({ err: err instanceof Error ? err.message : String(err) }, "a shadow request failed"),
      );
    },
  };
}

function noteSkip(phoneNumberId: string, accountId: string): void {
  const day = utcDay(new Date());
  const key = `${phoneNumberId} ${day}`;
  const entry = state.skips.get(key);
  if (entry) entry.skipped++;
  else state.skips.set(key, { phoneNumberId, accountId, day, skipped: 1 });
  schedule();
}

function queue(result: ShadowResult): void {
  state.queued.push(result);
  schedule();
}

function schedule(): void {
  const s = state;
  if (s.writing) return;
  if (s.queued.length >= BATCH_MAX) flush();
  else if (!s.lingering) {
    s.lingering = setTimeout(() => {
      s.lingering = null;
      flush();
    }, LINGER_MS);
  }
}

/** One batch at a time; what arrives meanwhile goes in the next. A failed batch is tried again (write-later.ts). */
function flush(): void {
  const s = state;
  if (s.writing || (!s.queued.length && !s.skips.size)) return;
  const batch = s.queued.slice(0, BATCH_MAX);
  s.queued = s.queued.slice(batch.length);
  const skips = [...s.skips.values()];
  s.skips.clear();
  s.writing = true;
  countPendingWrites(1);
  recordShadowResults(batch, skips)
    .then(
      () => undefined,
      () => writeLater("shadow results", batch[0]?.callSid ?? "", () => recordShadowResults(batch, skips), 1),
    )
    .finally(() => {
      countPendingWrites(-1);
      s.writing = false;
      if (s.queued.length || s.skips.size) schedule();
    });
}
