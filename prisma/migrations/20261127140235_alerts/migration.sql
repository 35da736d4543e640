-- CreateTable
CREATE TABLE "Alert" (
    "id" TEXT NOT NULL DEFAULT routekit_id(),
    "accountId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "subjectType" TEXT NOT NULL,
    "subjectId" TEXT NOT NULL,
    "subjectUrl" TEXT,
    "since" TIMESTAMPTZ(3) NOT NULL,
    "details" JSONB NOT NULL,
    "howToFix" TEXT NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "resolvedAt" TIMESTAMPTZ(3),
    "eventId" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Alert_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AlertSetting" (
    "accountId" TEXT NOT NULL,
    "emailOff" TEXT[],
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AlertSetting_pkey" PRIMARY KEY ("accountId")
);

-- CreateIndex
CREATE INDEX "Alert_accountId_createdAt_id_idx" ON "Alert"("accountId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Alert_type_resolvedAt_idx" ON "Alert"("type", "resolvedAt");

-- CreateIndex
CREATE UNIQUE INDEX "Alert_accountId_type_subjectType_subjectId_hour_key" ON "Alert"("accountId", "type", "subjectType", "subjectId", "hour");

-- AddForeignKey
ALTER TABLE "Alert" ADD CONSTRAINT "Alert_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AlertSetting" ADD CONSTRAINT "AlertSetting_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;
