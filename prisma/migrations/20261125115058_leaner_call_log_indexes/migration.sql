-- DropIndex
DROP INDEX "Call_accountId_createdAt_idx";

-- DropIndex
DROP INDEX "WebhookAttempt_attemptedAt_idx";

-- CreateIndex
CREATE INDEX "WebhookAttempt_attemptedAt_idx" ON "WebhookAttempt" USING BRIN ("attemptedAt");
