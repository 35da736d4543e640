import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { SMTPServer } from "smtp-server";

/**
 * A real SMTP server for the test run (the `smtp-server` package): the test
 * servers send to it through SMTP_URL exactly as they would to a provider.
 * Each message is written raw (.eml) into `dir`, where the test workers, in
 * other processes, read it.
 */
export async function startSmtpCapture(dir: string, listenPort = 0): Promise<{ url: string; close(): Promise<void> }> {
  const server = new SMTPServer({
    authOptional: true,
    // Plain SMTP on loopback: nothing to encrypt, and no certificate to make.
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        writeFileSync(path.join(dir, `${Date.now()}-${randomBytes(4).toString("hex")}.eml`), Buffer.concat(chunks));
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listenPort, "127.0.0.1", () => resolve());
  });
  const { port } = server.server.address() as { port: number };
  return { url: `smtp://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}
