-- CreateTable
CREATE TABLE "Call" (
    "id" TEXT NOT NULL,
    "callSid" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "phoneNumberId" TEXT,
    "direction" TEXT NOT NULL,
    "fromNumber" TEXT NOT NULL,
    "toNumber" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "statusRank" INTEGER NOT NULL,
    "answeredBy" TEXT,
    "durationSeconds" INTEGER,
    "metadata" JSONB,
    "onCallStartUrl" TEXT NOT NULL,
    "onCallEndUrl" TEXT NOT NULL,
    "onErrorUrl" TEXT,
    "providerAccountSid" TEXT,
    "providerAuthTokenEnc" TEXT,
    "answeredAt" TIMESTAMP(3),
    "endedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Call_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "UsageRecord" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "callSid" TEXT NOT NULL,
    "phoneNumberId" TEXT,
    "direction" TEXT NOT NULL,
    "callerNumber" TEXT NOT NULL,
    "calledNumber" TEXT NOT NULL,
    "durationSeconds" INTEGER NOT NULL,
    "billedMinutes" INTEGER NOT NULL,
    "totalCost" DECIMAL(14,6) NOT NULL,
    "costBreakdown" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "UsageRecord_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "UsageTotal" (
    "accountId" TEXT NOT NULL,
    "period" TEXT NOT NULL,
    "calls" INTEGER NOT NULL DEFAULT 0,
    "billedMinutes" INTEGER NOT NULL DEFAULT 0,
    "totalCost" DECIMAL(14,6) NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "UsageTotal_pkey" PRIMARY KEY ("accountId","period")
);

-- CreateIndex
CREATE UNIQUE INDEX "Call_callSid_key" ON "Call"("callSid");

-- CreateIndex
CREATE INDEX "Call_accountId_createdAt_idx" ON "Call"("accountId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "UsageRecord_callSid_key" ON "UsageRecord"("callSid");

-- CreateIndex
CREATE INDEX "UsageRecord_accountId_createdAt_id_idx" ON "UsageRecord"("accountId", "createdAt" DESC, "id" DESC);

-- AddForeignKey
ALTER TABLE "Call" ADD CONSTRAINT "Call_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Call" ADD CONSTRAINT "Call_phoneNumberId_fkey" FOREIGN KEY ("phoneNumberId") REFERENCES "PhoneNumber"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UsageRecord" ADD CONSTRAINT "UsageRecord_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UsageTotal" ADD CONSTRAINT "UsageTotal_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;
