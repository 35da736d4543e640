-- AlterTable
ALTER TABLE "PhoneNumber" ADD COLUMN     "listen" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "ListenSession" (
    "id" TEXT NOT NULL DEFAULT routekit_id(),
    "accountId" TEXT NOT NULL,
    "instanceId" TEXT NOT NULL,
    "apiKeyId" TEXT NOT NULL,
    "connectedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "heartbeatAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ListenSession_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ListenMessage" (
    "id" BIGSERIAL NOT NULL,
    "instanceId" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ListenMessage_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ListenSession_accountId_heartbeatAt_idx" ON "ListenSession"("accountId", "heartbeatAt");

-- CreateIndex
CREATE INDEX "ListenSession_instanceId_idx" ON "ListenSession"("instanceId");

-- CreateIndex
CREATE INDEX "ListenMessage_instanceId_id_idx" ON "ListenMessage"("instanceId", "id");
