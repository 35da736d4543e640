-- AlterTable
ALTER TABLE "Call" ADD COLUMN     "answer" TEXT,
ADD COLUMN     "errorCode" TEXT,
ADD COLUMN     "errorMessage" TEXT,
ADD COLUMN     "twiml" TEXT;

-- AlterTable
ALTER TABLE "WebhookDelivery" ADD COLUMN     "answerUse" TEXT,
ADD COLUMN     "synchronous" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "CallRequest" (
    "id" BIGSERIAL NOT NULL,
    "callId" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "kind" TEXT NOT NULL,
    "callStatus" TEXT NOT NULL,
    "sequenceNumber" INTEGER,

    CONSTRAINT "CallRequest_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "CallRequest_callId_at_idx" ON "CallRequest"("callId", "at");

-- CreateIndex
CREATE INDEX "Call_accountId_createdAt_id_idx" ON "Call"("accountId", "createdAt" DESC, "id" DESC);

-- AddForeignKey
ALTER TABLE "CallRequest" ADD CONSTRAINT "CallRequest_callId_fkey" FOREIGN KEY ("callId") REFERENCES "Call"("id") ON DELETE CASCADE ON UPDATE CASCADE;
