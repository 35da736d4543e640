// The floor for GET /api/account: node:http and pg, nothing else. The same read as the
// service (key by hash, its account, the two counts) in one prepared statement, answered as
// JSON; no framework, no validation, no decryption. Prints its port on stdout.
//   node bench/support/bare-account-server.mjs <DATABASE_URL>
import { createHash } from "node:crypto";
import http from "node:http";
import pg from "pg";

const pool = new pg.Pool({ connectionString: process.argv[2], max: 20 });
const READ = {
  name: "bare-account",
  text: `SELECT a.id, a.email, a."companyName", a.status, a."createdAt", a."webhookSecretEnc", a."routingTokenEnc",
      (SELECT count(*)::int FROM "PhoneNumber" p WHERE p."accountId" = a.id) AS "phoneNumbers",
      (SELECT count(*)::int FROM "ApiKey" k2 WHERE k2."accountId" = a.id AND k2."revokedAt" IS NULL) AS "apiKeys"
    FROM "ApiKey" k JOIN "Account" a ON a.id = k."accountId"
    WHERE k."keyHash" = $1 AND k."revokedAt" IS NULL`,
};

const server = http.createServer(async (req, res) => {
  const key = /^Bearer (\S+)$/.exec(req.headers.authorization ?? "")?.[1];
  if (req.url !== "/api/account" || !key) return res.writeHead(404).end();
  try {
    const { rows } = await pool.query({ ...READ, values: [createHash("sha256").update(key).digest("hex")] });
    const row = rows[0];
    if (!row)
      return res.writeHead(401, { "content-type": "application/json" }).end('{"error":{"code":"UNAUTHORIZED"}}');
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ account: row }));
  } catch {
    res.writeHead(500).end();
  }
});
server.keepAliveTimeout = 65_000;
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
process.on("SIGTERM", () => server.close(() => pool.end().then(() => process.exit(0))));
