-- CreateTable
CREATE TABLE "EndedSession" (
    "jti" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "EndedSession_pkey" PRIMARY KEY ("jti")
);

-- CreateIndex
CREATE INDEX "EndedSession_expiresAt_idx" ON "EndedSession"("expiresAt");

-- AddForeignKey
ALTER TABLE "EndedSession" ADD CONSTRAINT "EndedSession_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;
