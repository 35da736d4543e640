import { randomBytes } from "node:crypto";
import { AppError } from "../../errors/app-error";
import { db } from "../../db/client";
import { encryptSecret } from "../../crypto/secret-box";
import { twilioRestClient } from "../../integrations/twilio/twilio-rest-client";
import { logger } from "../../logger";
import { applyAnswerPolicy } from "../../../shared/schemas/answer-policy";
import type { TOutboundInput } from "../../../shared/schemas/outbound";
import { engineVoiceUrlOf } from "../accounts/engine-voice-url";
import { sqlTransaction } from "../../db/sql-transaction";
import { freeLiveSlot } from "./close-call";
import { storedJson } from "../phone-numbers/register-phone-number";
import { refuseOverSpendCap, takeLiveSlot } from "../limits/admission";

/** What a Twilio RestException carries; anything without a 4xx status is the provider being unreachable. */
function providerRefusal(err: unknown): { code: number | undefined; message: string } | null {
  const e = err as { status?: unknown; code?: unknown; message?: unknown };
  if (typeof e?.status === "number" && e.status >= 400 && e.status < 500) {
    return {
      code: typeof e.code === "number" ? e.code : undefined,
      message: typeof e.message === "string" ? e.message : "refused",
    };
  }
  return null;
}

/**
 * Starts a call at Twilio on the customer's credentials. The call is recorded
 * first, under a placeholder SID, and its id travels in the engine URL: Twilio
 * may call back before `calls.create` has returned, and the engine must know
 * the call (and its token, to check signatures) when it does. The guardrails (docs/decisions.md §17) come
 * first: over the hard cap, 402; at maxConcurrentCalls, 429; an outbound call is live for the count from
 * here until its final status.
 */
export async function startOutboundCall(opts: { accountId: string; input: TOutboundInput }) {
  const { input } = opts;
  const account = await db().account.findUniqueOrThrow({
    where: { id: opts.accountId },
    select: { routingTokenEnc: true, legacyRoutingToken: true },
  });
  const number = await db().phoneNumber.findFirst({
    where: { accountId: opts.accountId, phoneNumber: input.from, isActive: true },
    select: { id: true },
  });
  if (!number) throw new AppError("NUMBER_NOT_OWNED", `${input.from} is not a number registered to this account.`);

  const call = await sqlTransaction(async (trx) => {
    await refuseOverSpendCap(trx, opts.accountId);
    const made = await trx
      .insertInto("Call")
      .values({
        callSid: `pending:${randomBytes(12).toString("hex")}`,
        accountId: opts.accountId,
        phoneNumberId: number.id,
        direction: "outbound",
        fromNumber: input.from,
        toNumber: input.to,
        status: "queued",
        statusRank: 0,
        metadata: storedJson(input.metadata),
        onCallStartUrl: input.onCallStartUrl,
        onCallEndUrl: input.onCallEndUrl,
        onErrorUrl: input.onErrorUrl ?? null,
        // This call's own, like its URLs (docs/decisions.md §12); none given: the defaults.
        answerPolicy: storedJson(applyAnswerPolicy(null, input)),
        providerAccountSid: input.providerAccountSid,
        providerAuthTokenEnc: encryptSecret(input.providerAuthToken),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    // Refused here, the transaction takes the call back with it.
    if (!(await takeLiveSlot(trx, { accountId: opts.accountId, callId: made.id })))
      throw new AppError(
        "CONCURRENCY_LIMIT",
        "The account already has maxConcurrentCalls calls live; try again when one ends, or raise maxConcurrentCalls.",
      );
    return made;
  });
  const engineUrl = `${engineVoiceUrlOf(account)}?call=${call.id}`;

  let created;
  try {
    created = await twilioRestClient(input.providerAccountSid, input.providerAuthToken).calls.create({
      to: input.to,
      from: input.from,
      url: engineUrl,
      method: "POST",
      statusCallback: engineUrl,
      statusCallbackMethod: "POST",
      statusCallbackEvent: ["initiated", "ringing", "answered", "completed"],
      timeout: input.timeout,
      ...(input.machineDetection && { machineDetection: input.machineDetection }),
    });
  } catch (err) {
    // No call at Twilio: it never was, and gives its live slot back with it.
    await sqlTransaction(async (trx) => {
      await freeLiveSlot(trx, call.id);
      await trx.deleteFrom("Call").where("id", "=", call.id).execute();
    });
    const refusal = providerRefusal(err);
    if (refusal) {
      throw new AppError("PROVIDER_REJECTED", `Twilio refused the call: ${refusal.message}`, {
        details: [{ path: "provider", message: `${refusal.code ?? "error"}: ${refusal.message}` }],
      });
    }
    logger().warn({ err: err instanceof Error ? err.message : String(err) }, "Twilio unreachable for an outbound call");
    throw new AppError("PROVIDER_UNAVAILABLE");
  }

  // The engine may already have bound the SID from an early callback; both write the same value.
  await db().call.update({ where: { id: call.id }, data: { callSid: created.sid } });
  return { callSid: created.sid, status: created.status };
}
