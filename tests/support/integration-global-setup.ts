import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { freePort, siblingDatabase, startBuiltServer, type BuiltServer } from "../../scripts/built-server";
import { startSmtpCapture } from "./smtp-capture";
import { STRIPE_TEST_ENV, TEST_AUTH_SECRET, TEST_METRICS_TOKEN } from "./test-secrets";

/** One test server on its own database (or embedded when none): servers share AUTH_SECRET with in-process tests. */
function startServer(name: string, databaseUrl: string | undefined, env: Record<string, string>): Promise<BuiltServer> {
  return startBuiltServer({
    name: `it-${name}`,
    env: { AUTH_SECRET: TEST_AUTH_SECRET, DATABASE_URL: databaseUrl, ...env },
  });
}

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    databaseUrl: string;
    serverLog: string;
    permissiveBaseUrl: string;
    permissiveDatabaseUrl: string;
    /** Where the permissive server expects Twilio: the engine tests run the simulator on this port. */
    twilioSimulatorPort: number;
    /** The Stripe-mode server, and the port its fake Stripe must listen on. */
    stripeBaseUrl: string;
    stripeDatabaseUrl: string;
    /** The Stripe-mode server's log file (pino JSON lines). */
    stripeServerLog: string;
    stripeFakePort: number;
    embedded: boolean;
    /** Where the test SMTP server (SMTP_URL of the strict and Stripe servers) writes what it receives. */
    smtpMailDir: string;
    /** The permissive server runs without SMTP_URL: its mail lands in this DATA_DIR's outbox. */
    permissiveDataDir: string;
  }
}

/**
 * Boots the built service twice for the integration run, on DATABASE_URL (and a
 * sibling database) when set, else on the embedded database:
 * - the strict server, configured as in production (callback URLs must be public HTTPS);
 * - the permissive server, with CALLBACK_ALLOW_PRIVATE=true, so local customer
 *   backends on 127.0.0.1 receive calls and events.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env.DATABASE_URL;
  const permissiveDb = external ? await siblingDatabase(external, "permissive") : undefined;
  const stripeDb = external ? await siblingDatabase(external, "stripe") : undefined;
  const stripeFakePort = await freePort();
  const twilioSimulatorPort = await freePort();
  const smtpMailDir = mkdtempSync(path.join(tmpdir(), "routekit-smtp-"));
  const smtp = await startSmtpCapture(smtpMailDir);
  const [strict, permissive, stripeMode] = await Promise.all([
    // Nothing listens on port 9 of loopback here: Twilio is unreachable for the strict server.
    startServer("strict", external, { TWILIO_API_BASE_URL: "http://127.0.0.1:9", SMTP_URL: smtp.url }),
    startServer("permissive", permissiveDb, {
      CALLBACK_ALLOW_PRIVATE: "true",
      CALLBACK_START_TIMEOUT_MS: "1500",
      // A whole voice request answers within 4 s here (docs/decisions.md §12: 12 s in production), so the fallback tests measure deadlines in seconds.
      VOICE_ANSWER_BUDGET_MS: "4000",
      TWILIO_API_BASE_URL: `http://127.0.0.1:${twilioSimulatorPort}`,
    }),
    startServer("stripe", stripeDb, {
      CALLBACK_ALLOW_PRIVATE: "true",
      ...STRIPE_TEST_ENV,
      SMTP_URL: smtp.url,
      STRIPE_API_BASE_URL: `http://127.0.0.1:${stripeFakePort}`,
      METRICS_TOKEN: TEST_METRICS_TOKEN,
    }),
  ]);
  const servers = [strict, permissive, stripeMode];

  project.provide("baseUrl", strict.baseUrl);
  project.provide("databaseUrl", strict.databaseUrl);
  project.provide("serverLog", strict.log);
  project.provide("permissiveBaseUrl", permissive.baseUrl);
  project.provide("permissiveDatabaseUrl", permissive.databaseUrl);
  project.provide("twilioSimulatorPort", twilioSimulatorPort);
  project.provide("stripeBaseUrl", stripeMode.baseUrl);
  project.provide("stripeDatabaseUrl", stripeMode.databaseUrl);
  project.provide("stripeServerLog", stripeMode.log);
  project.provide("stripeFakePort", stripeFakePort);
  project.provide("embedded", !external);
  project.provide("smtpMailDir", smtpMailDir);
  project.provide("permissiveDataDir", permissive.dataDir);

  return async () => {
    const keepData = Boolean(process.env.KEEP_TEST_DATA);
    await Promise.all(servers.map((s) => s.stop({ keepData })));
    await smtp.close();
    if (!keepData) rmSync(smtpMailDir, { recursive: true, force: true });
    if (keepData) for (const s of servers) console.log(`test data kept in ${s.dataDir}`);
  };
}
