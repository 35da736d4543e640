-- AlterTable
ALTER TABLE "Call" ADD COLUMN     "controlEnd" TEXT;

-- CreateTable
CREATE TABLE "CallCommand" (
    "id" TEXT NOT NULL DEFAULT routekit_id(),
    "callId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor" TEXT NOT NULL,
    "command" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "providerStatus" INTEGER,
    "providerCode" INTEGER,
    "providerMessage" TEXT,
    "providerMs" INTEGER NOT NULL,
    "ownMs" INTEGER NOT NULL,
    "details" JSONB,
    "result" JSONB,
    "resultAt" TIMESTAMPTZ(3),

    CONSTRAINT "CallCommand_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CallRecording" (
    "id" TEXT NOT NULL DEFAULT routekit_id(),
    "callId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "recordingSid" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "channels" INTEGER NOT NULL,
    "url" TEXT,
    "durationSeconds" INTEGER,
    "errorCode" TEXT,
    "providerAccountSid" TEXT,
    "providerAuthTokenEnc" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CallRecording_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "CallCommand_callId_at_idx" ON "CallCommand"("callId", "at");

-- CreateIndex
CREATE UNIQUE INDEX "CallRecording_recordingSid_key" ON "CallRecording"("recordingSid");

-- CreateIndex
CREATE INDEX "CallRecording_callId_createdAt_idx" ON "CallRecording"("callId", "createdAt");

-- AddForeignKey
ALTER TABLE "CallCommand" ADD CONSTRAINT "CallCommand_callId_fkey" FOREIGN KEY ("callId") REFERENCES "Call"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CallRecording" ADD CONSTRAINT "CallRecording_callId_fkey" FOREIGN KEY ("callId") REFERENCES "Call"("id") ON DELETE CASCADE ON UPDATE CASCADE;
