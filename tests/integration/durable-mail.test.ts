import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { env, parseEnv, setEnv } from "../../src/server/env";
import { queueMail } from "../../src/server/email/queue-mail";
import { mailJob } from "../../src/server/jobs/definitions/mail";
import { mailWorker } from "../../src/server/workers/mail.handler";
import { jobQueue } from "../../src/server/jobs/job-queue";
import { forget } from "../../src/server/runtime/remember";
import { startInProcess } from "../support/in-process";
import { startSmtpCapture } from "../support/smtp-capture";
import { TEST_AUTH_SECRET } from "../support/test-secrets";
import { until } from "../support/until";

/**
 * The durable mail job (issue #28): a mail queued while the SMTP server is down stays queued, is retried by
 * pg-boss with backoff, and reaches the server once it is up, exactly once however often the job runs.
 */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  const { port } = s.address() as { port: number };
  await new Promise((r) => s.close(() => r(undefined)));
  return port;
}

let stopInProcess: () => Promise<void>;
const port = await freePort();
const dir = mkdtempSync(path.join(tmpdir(), "routekit-durable-smtp-"));

beforeAll(async () => {
  stopInProcess = (await startInProcess()).stop;
  setEnv(
    parseEnv({
      DATA_DIR: env().dataDir,
      AUTH_SECRET: TEST_AUTH_SECRET,
      LOG_LEVEL: "silent",
      SMTP_URL: `smtp://127.0.0.1:${port}`,
    }),
  );
  forget("mailTransport");
});
afterAll(() => stopInProcess());

describe("durable mail", () => {
  it("survives an SMTP server that is down: retried by the queue, delivered once when it is back", async () => {
    const to = `durable-${randomBytes(4).toString("hex")}@example.com`;
    const messageId = await queueMail({ to, subject: "Durable hello", text: "kept until sent" }, { kind: "test" });
    const boss = await jobQueue();

    const [first] = await boss.fetch<object>(mailJob.name);
    expect(first).toBeDefined();
    // Nothing listens on the port: the send fails and the job goes back with a retry due.
    await expect(mailWorker.handler!([first!.data as never])).rejects.toThrow();
    await boss.fail(mailJob.name, first!.id);

    const smtp = await startSmtpCapture(dir, port);
    try {
      const retried = await until(
        async () => (await boss.fetch<object>(mailJob.name))[0],
        "the mail job retried",
        30_000,
        250,
      );
      expect(retried.id).toBe(first!.id);
      await mailWorker.handler!([retried.data as never]);
      await boss.complete(mailJob.name, retried.id);
      // The same job again (handed out twice, or its batch retried): recorded as sent, nothing more goes out.
      await mailWorker.handler!([retried.data as never]);

      const received = readdirSync(dir).map((f) => readFileSync(path.join(dir, f), "utf8"));
      const ours = received.filter((m) => m.includes(to));
      expect(ours).toHaveLength(1);
      expect(ours[0]).toContain("Durable hello");
      expect(ours[0]).toContain(`<${messageId}@routekit>`);
      // The job table never held the body in clear (it may carry a one-time link).
      expect(JSON.stringify(retried.data)).not.toContain("kept until sent");
    } finally {
      await smtp.close();
    }
  });
});
