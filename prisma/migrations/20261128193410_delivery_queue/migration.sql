-- AlterTable
ALTER TABLE "WebhookDelivery" ADD COLUMN     "claimedAt" TIMESTAMPTZ(3),
ADD COLUMN     "lane" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "queue" TEXT NOT NULL DEFAULT 'deliveries',
ADD COLUMN     "runAt" TIMESTAMPTZ(3),
ADD COLUMN     "traceparent" TEXT;

-- CreateIndex
CREATE INDEX "WebhookDelivery_queue_idx" ON "WebhookDelivery"("queue", "lane", "runAt") WHERE ("runAt" IS NOT NULL);

-- One destination of one account, as a short key (a URL may be 2 KB): the delivery queue's lane
-- (services/deliveries/queue/postgres-delivery-queue.ts). The only place the rule is written.
CREATE FUNCTION routekit_lane(account text, url text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT substr(translate(encode(sha256(convert_to(account || chr(10) || url, 'UTF8')), 'base64'), '+/', '-_'), 1, 22) $$;

-- The deliveries queued at upgrade time move onto the new queue: every PENDING delivery that is sent
-- in the background (not call.started) is due when its next attempt was (a redeliver's or a first
-- attempt's is now or past). pg-boss's delivery jobs are dropped by the application at start
-- (jobs/job-queue.ts, through pg-boss's deleteQueue): an attempt is made once per PENDING row, whatever
-- jobs pointed at it, so none is lost and none doubles.
UPDATE "WebhookDelivery"
  SET "lane" = routekit_lane("accountId", "url"), "runAt" = COALESCE("nextAttemptAt", now())
  WHERE "status" = 'PENDING' AND NOT "synchronous";
