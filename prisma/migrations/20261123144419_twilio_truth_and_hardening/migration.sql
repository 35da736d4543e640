-- Routing tokens are stored hashed (lookup) and encrypted (display). Existing plaintext
-- tokens keep working: their hash is computed here, and the server encrypts them into
-- "routingTokenEnc" and clears "legacyRoutingToken" at its next start.
DROP INDEX "Account_routingToken_key";
ALTER TABLE "Account" RENAME COLUMN "routingToken" TO "legacyRoutingToken";
ALTER TABLE "Account" ALTER COLUMN "legacyRoutingToken" DROP NOT NULL,
ADD COLUMN     "previousRoutingTokenExpiresAt" TIMESTAMP(3),
ADD COLUMN     "previousRoutingTokenHash" TEXT,
ADD COLUMN     "routingTokenEnc" TEXT,
ADD COLUMN     "routingTokenHash" TEXT,
ADD COLUMN     "sessionVersion" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "subscriptionStatus" TEXT;
UPDATE "Account" SET "routingTokenHash" = encode(sha256(convert_to("legacyRoutingToken", 'UTF8')), 'hex');
ALTER TABLE "Account" ALTER COLUMN "routingTokenHash" SET NOT NULL;

-- AlterTable
ALTER TABLE "Call" ADD COLUMN     "lastRequestAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "reconciledAt" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "PhoneNumber" ADD COLUMN     "twilioConfigured" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "twilioSid" TEXT,
ADD COLUMN     "verified" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "UsageTotal" ALTER COLUMN "calls" SET DATA TYPE BIGINT,
ALTER COLUMN "billedMinutes" SET DATA TYPE BIGINT,
ALTER COLUMN "totalCost" SET DATA TYPE DECIMAL(24,6);

-- CreateTable
CREATE TABLE "TwilioConnection" (
    "accountId" TEXT NOT NULL,
    "accountSid" TEXT NOT NULL,
    "authTokenEnc" TEXT NOT NULL,
    "friendlyName" TEXT,
    "connectedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "reconciledThrough" TIMESTAMP(3),

    CONSTRAINT "TwilioConnection_pkey" PRIMARY KEY ("accountId")
);

-- CreateTable
CREATE TABLE "BillingLinkUse" (
    "jti" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "usedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BillingLinkUse_pkey" PRIMARY KEY ("jti")
);

-- CreateIndex
CREATE INDEX "TwilioConnection_accountSid_idx" ON "TwilioConnection"("accountSid");

-- CreateIndex
CREATE UNIQUE INDEX "Account_routingTokenHash_key" ON "Account"("routingTokenHash");

-- CreateIndex
CREATE UNIQUE INDEX "Account_previousRoutingTokenHash_key" ON "Account"("previousRoutingTokenHash");

-- CreateIndex
CREATE INDEX "Call_statusRank_lastRequestAt_idx" ON "Call"("statusRank", "lastRequestAt");

-- AddForeignKey
ALTER TABLE "TwilioConnection" ADD CONSTRAINT "TwilioConnection_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BillingLinkUse" ADD CONSTRAINT "BillingLinkUse_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;
