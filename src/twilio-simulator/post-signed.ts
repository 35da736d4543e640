import twilio from "twilio";

/** Twilio's documented webhook budget: 15 s in total for an answer. */
const TWILIO_WEBHOOK_TIMEOUT_MS = 15_000;

/** Sends one Twilio-style signed form POST: every request the simulator makes to Routekit goes through here. */
export async function postSigned(
  url: string,
  params: Record<string, string>,
  authToken: string,
  opts: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<{ status: number; body: string; contentType: string | null; headers: Headers }> {
  const timeout = AbortSignal.timeout(opts.timeoutMs ?? TWILIO_WEBHOOK_TIMEOUT_MS);
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      "User-Agent": "TwilioProxy/1.1",
      "X-Twilio-Signature": twilio.getExpectedTwilioSignature(authToken, url, params),
    },
    body: new URLSearchParams(params).toString(),
    // Twilio does not follow redirects on webhooks' behalf here; a 3xx is what the service answered.
    redirect: "manual",
    signal: opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout,
  });
  return {
    status: res.status,
    body: await res.text(),
    contentType: res.headers.get("content-type"),
    headers: res.headers,
  };
}

/** A signed POST as the live-call hooks log it: no answer (refused, timed out) is status 0, never thrown. */
export async function postLogged(
  url: string,
  params: Record<string, string>,
  authToken: string,
): Promise<{ url: string; status: number; body: string }> {
  try {
    const { status, body } = await postSigned(url, params, authToken);
    return { url, status, body };
  } catch {
    return { url, status: 0, body: "" };
  }
}
