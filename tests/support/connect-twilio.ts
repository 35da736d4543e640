import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { encryptSecret } from "../../src/server/crypto/secret-box";
import { parseEnv } from "../../src/server/env";
import { seed, type Server } from "./api";
import { build } from "./seed";
import { TEST_AUTH_SECRET } from "./test-secrets";

/** The test servers' ENCRYPTION_KEY: derived from the AUTH_SECRET they share with the tests. */
export const serverEncryptionKey = parseEnv(
  { AUTH_SECRET: TEST_AUTH_SECRET, DATA_DIR: mkdtempSync(path.join(tmpdir(), "routekit-key-")) },
  { persistSecrets: false },
).encryptionKey;

/**
 * Gives an account a Twilio connection directly in its server's database (the
 * `PUT /api/twilio-connection` endpoint checks credentials at Twilio; the
 * engine only needs the row), with the auth token sealed as the server seals it.
 */
export async function connectTwilioRow(opts: {
  accountId: string;
  accountSid: string;
  authToken: string;
  server?: Server;
  connectedAt?: Date;
}): Promise<void> {
  await seed(opts.server ?? "permissive").run(
    build
      .insertInto("TwilioConnection")
      .values({
        accountId: opts.accountId,
        accountSid: opts.accountSid,
        authTokenEnc: encryptSecret(opts.authToken, serverEncryptionKey),
        connectedAt: opts.connectedAt ?? new Date(),
      })
      .onConflict((conflict) =>
        conflict.column("accountId").doUpdateSet((eb) => ({
          accountSid: eb.ref("excluded.accountSid"),
          authTokenEnc: eb.ref("excluded.authTokenEnc"),
        })),
      ),
  );
}
