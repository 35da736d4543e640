/**
 * The Twilio simulator's `inbound` command for this account (README "Try a call without Twilio",
 * src/twilio-simulator/cli.ts). With a Twilio connection every engine request must be signed with its
 * auth token and carry its AccountSid (docs/decisions.md §10), so the command passes `--account` and
 * `--token`; the token is a placeholder the customer fills in, never the real one (Routekit keeps it
 * only encrypted and never shows it back).
 */
export function simulatorCommandFor(opts: { engineUrl: string; to: string | null; accountSid: string | null }): string {
  const base = `npm run twilio-sim -- inbound '${opts.engineUrl}' --from +14155550100 --to ${opts.to ?? "<your registered number>"} --duration 61`;
  return opts.accountSid ? `${base} \\\n  --account ${opts.accountSid} --token '<your Twilio auth token>'` : base;
}
