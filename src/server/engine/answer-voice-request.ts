/**
 * A voice request when our own database blinks (docs/decisions.md §7): no caller hears Twilio's
 * "application error" because of it. The request's database part (the lookup and the call's insert)
 * gets VOICE_DATABASE_DEADLINE_MS; when it fails with "try again" or takes longer, the outage path
 * takes the request over:
 *
 * - A number this instance has seen (routing-cache.ts keeps every ACTIVE account's routing it read) is
 *   put to the customer's backend as usual, fallbacks and last resort included (ask-backend.ts). The
 *   call is journaled (journaled-call.ts) and written once the database is back, with its answer, its
 *   events and, through its final status, its usage. Limits that need the database (spend cap, daily
 *   cap, concurrency) are not enforced for calls answered so, for at most the outage.
 * - Any other voice request (a number it has not seen, an outbound call's answer) gets the built-in
 *   spoken apology, never a 503.
 *
 * Readiness stays false meanwhile (health/readiness.ts), so a balancer prefers a healthy instance.
 */
import { AppError } from "../errors/app-error";
import { isTransientError } from "../errors/to-error-response";
import { errorSummary } from "../db/database-availability";
import { newDatabaseId } from "../db/database-id";
import { decryptSecret } from "../crypto/secret-box";
import { logger } from "../logger";
import { metrics } from "../metrics/metrics";
import { hashRoutingToken } from "../services/accounts/engine-voice-url";
import { fallbackTwiml } from "../services/answers/fixed-twiml";
import { decideCall, type VoiceGate } from "./ask-backend";
import { countAnswer } from "./call-log";
import { plainInboundCall } from "./sql/lookup";
import { journalAnsweredCall } from "./final-status-journal";
import { handleEngineRequest, inboundInsertOf, type EngineRequest } from "./handle-engine-request";
import { journaledAnswer } from "./journaled-call";
import { lastKnownRouting } from "./routing-cache";
import { verifyTwilioSignature } from "./verify-twilio-signature";

/**
 * How long a voice request waits on the database before the outage path answers it. A healthy lookup
 * takes milliseconds; a stopped or frozen database would otherwise hold the caller until the pool's own
 * timeouts (5 s to connect, 9 s per query), most of Twilio's 15 s. What is spent here comes out of the
 * backend's budget (ask-backend.ts counts from the request's arrival, less at most a second).
 */
const VOICE_DATABASE_DEADLINE_MS = 1_500;

/** A voice request (not a status callback) while the database is thought up: the usual path, or the outage's. */
export async function answerVoiceRequest(req: EngineRequest): Promise<string> {
  const receivedAt = req.receivedAt ?? new Date();
  const request = { ...req, receivedAt };
  const gate: VoiceGate = { decided: false, abandoned: false };
  const work = handleEngineRequest(request, gate);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => {
      // Checked and set in one turn: past this, the database part asks nobody (decideCall).
      if (gate.decided) return;
      gate.abandoned = true;
      resolve(null);
    }, VOICE_DATABASE_DEADLINE_MS);
  });
  try {
    const twiml = await Promise.race([work, late]);
    if (twiml !== null) return twiml;
    // Abandoned: what the database part does later is harmless (it asks nobody), and its failure is expected.
    work.catch(() => undefined);
    return answerDuringOutage(request, `the database did not answer within ${VOICE_DATABASE_DEADLINE_MS} ms`);
  } catch (err) {
    if (gate.decided || !isTransientError(err)) throw err;
    gate.abandoned = true;
    return answerDuringOutage(request, errorSummary(err));
  } finally {
    clearTimeout(timer);
  }
}

/** The outage path (see the top of this file): the backend's answer for a number seen here, else the apology. */
export async function answerDuringOutage(req: EngineRequest, cause: string): Promise<string> {
  const receivedAt = req.receivedAt ?? new Date();
  const { params } = req;
  const to = params.To ?? "";
  const routing = req.callId ? undefined : lastKnownRouting(hashRoutingToken(req.routingToken), to);
  if (!routing) {
    metrics().engineOutageAnswers.inc({ outcome: "apology" });
    logger().warn({ callSid: params.CallSid, cause }, "database unavailable: a voice request got the apology");
    return fallbackTwiml();
  }
  // The account's Twilio connection signs every request of its calls (docs/decisions.md §10), outage or not.
  const { connection } = routing;
  if (
    connection &&
    !(
      params.AccountSid === connection.accountSid &&
      verifyTwilioSignature({
        authToken: decryptSecret(connection.authTokenEnc),
        signature: req.signature,
        pathAndQuery: req.pathAndQuery,
        params,
      })
    )
  )
    throw new AppError("FORBIDDEN", "Invalid X-Twilio-Signature.");

  const { account, number } = routing;
  const insert = inboundInsertOf(params);
  const call = plainInboundCall(newDatabaseId(), account.id, number, params.CallSid!, to, insert);
  const decision = await decideCall(account, call, params, receivedAt);
  countAnswer(decision.record);
  metrics().engineOutageAnswers.inc({ outcome: "asked" });
  try {
    await journalAnsweredCall({
      kind: "answered-call",
      receivedAt: receivedAt.toISOString(),
      call: {
        callSid: call.callSid,
        accountId: call.accountId,
        phoneNumberId: call.phoneNumberId,
        fromNumber: call.fromNumber,
        toNumber: call.toNumber,
        statusRank: call.statusRank,
        status: insert.status,
        onCallStartUrl: call.onCallStartUrl,
        onCallEndUrl: call.onCallEndUrl,
        onErrorUrl: call.onErrorUrl,
        answerPolicy: call.answerPolicy,
      },
      answer: journaledAnswer(decision.record),
      callError: decision.callError,
    });
    logger().warn(
      { callSid: call.callSid, cause },
      "database unavailable: the backend answered the call, journaled to be written once the database is back",
    );
  } catch (err) {
    // The caller still gets the backend's answer; only our record of the call is lost (a full or failing disk).
    logger().error(
      { callSid: call.callSid, err: errorSummary(err) },
      "database unavailable and the call could not be journaled: it will not be billed or listed",
    );
  }
  return decision.twiml;
}
