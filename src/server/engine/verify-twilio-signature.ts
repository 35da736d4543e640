import twilio from "twilio";
import { env } from "../env";

/**
 * X-Twilio-Signature is computed over the URL Twilio called. Behind a
 * TLS-terminating proxy the Host header and scheme we see are not that URL,
 * so it is rebuilt from PUBLIC_BASE_URL plus the path and query.
 */
export function verifyTwilioSignature(opts: {
  authToken: string;
  signature: string | null;
  pathAndQuery: string;
  params: Record<string, string>;
}): boolean {
  if (!opts.signature) return false;
  return twilio.validateRequest(opts.authToken, opts.signature, env().publicBaseUrl + opts.pathAndQuery, opts.params);
}
