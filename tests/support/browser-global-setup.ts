import { freePort, siblingDatabase, startBuiltServer } from "../../scripts/built-server";

/**
 * One built Routekit for the browser suite, in local billing mode, on a fresh
 * database (a sibling of DATABASE_URL, or the embedded one), letting callback
 * URLs point at the test's own customer backend on loopback, and with Twilio
 * at a port the test's simulator listens on.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const external = process.env.DATABASE_URL;
  const databaseUrl = external ? await siblingDatabase(external, "e2e") : undefined;
  const twilioPort = await freePort();
  const server = await startBuiltServer({
    name: "e2e",
    env: {
      DATABASE_URL: databaseUrl,
      CALLBACK_ALLOW_PRIVATE: "true",
      CALLBACK_START_TIMEOUT_MS: "3000",
      TWILIO_API_BASE_URL: `http://127.0.0.1:${twilioPort}`,
      STRIPE_SECRET_KEY: undefined,
      REDIS_URL: undefined,
    },
  });
  // Workers inherit the environment set here.
  process.env.E2E_BASE_URL = server.baseUrl;
  process.env.E2E_TWILIO_PORT = String(twilioPort);
  process.env.E2E_SERVER_LOG = server.log;
  // For what the API cannot set up yet (a membership without the invitation page: e2e/roles.spec.ts).
  process.env.E2E_DATABASE_URL = server.databaseUrl;
  return async () => {
    await server.stop({ keepData: Boolean(process.env.KEEP_TEST_DATA) });
  };
}
