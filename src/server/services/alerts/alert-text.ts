import type { AlertSubjectType, AlertType } from "../../../shared/schemas/alerts";

/** docs/events.md "Alerts": what to do about each kind, in a sentence or two (shown in the API, the dashboard and the mail). */
export function howToFix(type: AlertType, subject: { type: AlertSubjectType; url?: string }): string {
  const where = subject.url ? ` (${subject.url})` : "";
  switch (type) {
    case "alert.endpoint_failing":
      return `Check that your server${where} is up and answers 2xx within 10 s; see the failed attempts in Deliveries. Routekit keeps retrying with backoff and never disables it; deliveries that give up can be redelivered.`;
    case "alert.endpoint_recovered":
      return "Nothing to do: it answers again. Deliveries that gave up meanwhile can be redelivered from Deliveries (replay).";
    case "alert.delivery_exhausted":
      return `The event was not delivered${where} after its last attempt. Fix the receiver, then redeliver it from Deliveries or with POST /api/webhook-deliveries/{id}/redeliver.`;
    case "alert.fallback_rate":
      return "Your onCallStartUrl is not answering in time or with a usable answer, so your fallback decides the calls. Check the number's call.started deliveries in Deliveries and the call log's error column.";
    case "alert.fallback_rate_recovered":
      return "Nothing to do: calls on this number are decided by your own answer again.";
    case "alert.twilio_credentials_rejected":
      return "Someone revoked or rotated the Auth Token of your Twilio account. Reconnect Twilio in Settings with the current Account SID and Auth Token; until then calls cannot be checked or reconciled.";
    case "alert.number_unconfigured":
      return "The number's Voice URL at Twilio was changed, so its calls no longer reach Routekit. Set it up again from Numbers (or point its Voice URL back at your engine URL in the Twilio console).";
    case "alert.payment_failed":
      return "Update your payment method on the Billing page; the account is suspended if the payment keeps failing.";
  }
}

export function alertTitle(type: AlertType): string {
  return {
    "alert.endpoint_failing": "An endpoint is failing",
    "alert.endpoint_recovered": "An endpoint recovered",
    "alert.delivery_exhausted": "A delivery gave up",
    "alert.fallback_rate": "A fallback is answering your calls",
    "alert.fallback_rate_recovered": "Your answers decide the calls again",
    "alert.twilio_credentials_rejected": "Twilio rejected your credentials",
    "alert.number_unconfigured": "A number no longer points at Routekit",
    "alert.payment_failed": "A payment failed",
  }[type];
}
