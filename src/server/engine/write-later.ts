/**
 * Writes that belong after Twilio's answer (the call log's, a refusal's, a failed primary's `call.error`):
 * tried again on a schedule when the database blinks, since Twilio does not ask twice, and waited for on
 * shutdown (main.ts) so the pool closes only once they landed or gave up. The count of writes still being
 * tried is per process (runtime/remember.ts): a write queued from the Next.js graph (a simulated call)
 * is drained too.
 */
import { logger } from "../logger";
import { remember } from "../runtime/remember";

const RETRY_DELAYS_MS = [250, 1_000, 4_000, 15_000, 60_000];

const writeState = remember("engine.writesLater", () => ({ pending: 0 }));
const writes = () => writeState;

/** A write now in the count (the call log's batches count theirs themselves). */
export function countPendingWrites(n: number): void {
  writes().pending += n;
}

/** On shutdown: lets the writes in flight land (or give up after `timeoutMs`) before the pool closes. */
export async function drainCallLogWrites(timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (writes().pending > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
}

/**
 * Any other write that belongs after the answer (the `call.error` of a failed primary): tried again
 * on the same schedule, and waited for on shutdown like the call log's own.
 */
export function afterAnswer(what: string, callSid: string, write: () => Promise<unknown>): void {
  writeLater(what, callSid, write);
}

/** `tried`: attempts already made (a failed batch counts as the first), so the schedule goes on from there. */
export function writeLater(what: string, callSid: string, write: () => Promise<unknown>, tried = 0): void {
  const state = writes();
  state.pending++;
  const attempt = (n: number): void => {
    write().then(
      () => state.pending--,
      (err: unknown) => {
        const delay = RETRY_DELAYS_MS[n];
        if (delay === undefined) {
          state.pending--;
          logger().error(
            { err: err instanceof Error ? err.message : String(err), callSid },
            `could not record the ${what}`,
          );
          return;
        }
        setTimeout(() => attempt(n + 1), delay).unref();
      },
    );
  };
  if (tried === 0) attempt(0);
  else setTimeout(() => attempt(tried), RETRY_DELAYS_MS[tried - 1]).unref();
}
