-- AlterTable
ALTER TABLE "PhoneNumber" ADD COLUMN     "shadow" JSONB;

-- AlterTable
ALTER TABLE "WebhookDelivery" ADD COLUMN     "kind" TEXT NOT NULL DEFAULT 'event';

-- CreateTable
CREATE TABLE "ShadowCall" (
    "id" TEXT NOT NULL DEFAULT routekit_id(),
    "accountId" TEXT NOT NULL,
    "phoneNumberId" TEXT NOT NULL,
    "callSid" TEXT NOT NULL,
    "startedAt" TIMESTAMPTZ(3) NOT NULL,
    "outcome" TEXT NOT NULL,
    "primaryAnswer" TEXT NOT NULL,
    "primaryTwiml" TEXT,
    "primaryLatencyMs" INTEGER NOT NULL,
    "shadowAnswer" TEXT NOT NULL,
    "shadowTwiml" TEXT,
    "shadowLatencyMs" INTEGER NOT NULL,
    "shadowError" TEXT,

    CONSTRAINT "ShadowCall_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ShadowSkip" (
    "phoneNumberId" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "skipped" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "ShadowSkip_pkey" PRIMARY KEY ("phoneNumberId","day")
);

-- CreateIndex
CREATE INDEX "ShadowCall_phoneNumberId_startedAt_idx" ON "ShadowCall"("phoneNumberId", "startedAt");

-- CreateIndex
CREATE INDEX "ShadowCall_startedAt_idx" ON "ShadowCall" USING BRIN ("startedAt");
