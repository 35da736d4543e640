import { inject } from "vitest";
import { startTwilioSimulator, type TwilioSimulator } from "../../src/twilio-simulator/twilio-simulator";

/**
 * The Twilio simulator on the one port the permissive server's TWILIO_API_BASE_URL names (integration-global-setup.ts).
 * Several files use it and two files run at once, so the port is theirs one at a time: a file that finds it
 * taken waits here for the other file to close its simulator (up to 100 s, inside the 120 s hook timeout),
 * where it used to fail its whole suite with EADDRINUSE.
 */
export async function startSharedTwilioSimulator(accounts: Record<string, string>): Promise<TwilioSimulator> {
  const deadline = Date.now() + 100_000;
  for (;;) {
    try {
      return await startTwilioSimulator({ accounts, port: inject("twilioSimulatorPort"), host: "127.0.0.1" });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EADDRINUSE" || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}
