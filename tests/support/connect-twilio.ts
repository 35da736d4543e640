import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { encryptSecret } from "../../src/server/crypto/secret-box";
import { parseEnv } from "../../src/server/env";
import { sql, type Server } from "./api";
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
  await sql(opts.server ?? "permissive").query(
    `INSERT INTO "TwilioConnection" ("accountId", "accountSid", "authTokenEnc", "connectedAt") VALUES ($1, $2, $3, $4::timestamptz)
     ON CONFLICT ("accountId") DO UPDATE SET "accountSid" = EXCLUDED."accountSid", "authTokenEnc" = EXCLUDED."authTokenEnc"`,
    [
      opts.accountId,
      opts.accountSid,
      encryptSecret(opts.authToken, serverEncryptionKey),
      (opts.connectedAt ?? new Date()).toISOString(),
    ],
  );
}
