/**
 * What the reference says about every callback URL field, written once: each
 * is a request Routekit makes on the customer's behalf (docs/decisions.md §6).
 */
export const PUBLIC_HTTPS =
  "Public HTTPS, checked again at delivery: `https`, no user-info, at most 2048 characters, not localhost, *.local or *.internal, not a private, loopback or reserved address; at delivery the host's addresses are checked again and the connection pinned to a checked one.";

export const CALLBACK_FIELD = {
  onCallStartUrl: `Receives call.started when a call is answered; its answer (TwiML, {twiml} or {actions}) decides the call, within CALLBACK_START_TIMEOUT_MS. ${PUBLIC_HTTPS}`,
  onCallEndUrl: `Receives call.ended when a call ends. ${PUBLIC_HTTPS}`,
  onErrorUrl: `Receives call.error when a call fails, is rejected or falls back; none when null. ${PUBLIC_HTTPS}`,
} as const;
