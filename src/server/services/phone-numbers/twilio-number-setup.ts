import { db } from "../../db/client";
import {
  setTwilioNumberUrls,
  fetchTwilioNumber,
  type TwilioCredentials,
} from "../../integrations/twilio/twilio-account-api";
import { logger } from "../../logger";
import { isEngineVoiceUrlOf } from "../accounts/engine-voice-url";

/** docs/decisions.md §10: the number's voice URL and status callback both go to the engine URL, method POST. */
export async function pointNumberAtEngine(
  creds: TwilioCredentials,
  twilioSid: string,
  engineVoiceUrl: string,
): Promise<void> {
  await setTwilioNumberUrls(creds, twilioSid, { voiceUrl: engineVoiceUrl, statusCallback: engineVoiceUrl });
}

/**
 * On release, each of the two URLs is cleared at Twilio only when it still
 * points at this account's engine URL: a customer who has since pointed the
 * number elsewhere keeps their setting. Best effort: the release stands
 * whatever Twilio answers, and a failure is logged.
 */
export async function clearNumberIfStillOurs(opts: {
  accountId: string;
  creds: TwilioCredentials;
  twilioSid: string;
}): Promise<void> {
  try {
    const [atTwilio, account] = await Promise.all([
      fetchTwilioNumber(opts.creds, opts.twilioSid),
      db().account.findUniqueOrThrow({
        where: { id: opts.accountId },
        select: { routingTokenHash: true, previousRoutingTokenHash: true, previousRoutingTokenExpiresAt: true },
      }),
    ]);
    const clear = {
      ...(isEngineVoiceUrlOf(atTwilio.voiceUrl, account) && { voiceUrl: "" }),
      ...(isEngineVoiceUrlOf(atTwilio.statusCallback, account) && { statusCallback: "" }),
    };
    if (Object.keys(clear).length > 0) await setTwilioNumberUrls(opts.creds, opts.twilioSid, clear);
  } catch (err) {
    logger().warn(
      { err: err instanceof Error ? err.message : String(err), accountId: opts.accountId, twilioSid: opts.twilioSid },
      "could not clear a released number's URLs at Twilio",
    );
  }
}
