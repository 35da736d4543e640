-- Spend and volume guardrails (docs/decisions.md §17): an account's limits and live-call count, the slot each
-- live call holds, the thresholds each month crossed, and a number's daily minute cap.
-- AlterTable
ALTER TABLE "PhoneNumber" ADD COLUMN     "dailyMinuteCap" INTEGER;

-- CreateTable
CREATE TABLE "AccountLimit" (
    "accountId" TEXT NOT NULL,
    "monthlyBudget" DECIMAL(14,2),
    "alertThresholds" INTEGER[] DEFAULT ARRAY[50, 80, 100]::INTEGER[],
    "hardCap" BOOLEAN NOT NULL DEFAULT false,
    "maxConcurrentCalls" INTEGER,
    "liveCalls" INTEGER NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AccountLimit_pkey" PRIMARY KEY ("accountId")
);

-- CreateTable
CREATE TABLE "LiveCallSlot" (
    "callId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "LiveCallSlot_pkey" PRIMARY KEY ("callId")
);

-- CreateTable
CREATE TABLE "UsageThresholdCrossing" (
    "accountId" TEXT NOT NULL,
    "month" TEXT NOT NULL,
    "threshold" INTEGER NOT NULL,
    "monthlyBudget" DECIMAL(14,2) NOT NULL,
    "spent" DECIMAL(24,6) NOT NULL,
    "callSid" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "UsageThresholdCrossing_pkey" PRIMARY KEY ("accountId","month","threshold")
);

-- CreateIndex
CREATE INDEX "LiveCallSlot_accountId_idx" ON "LiveCallSlot"("accountId");

-- AddForeignKey
ALTER TABLE "AccountLimit" ADD CONSTRAINT "AccountLimit_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UsageThresholdCrossing" ADD CONSTRAINT "UsageThresholdCrossing_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;
