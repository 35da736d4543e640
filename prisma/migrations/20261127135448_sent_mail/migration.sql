-- CreateTable
CREATE TABLE "SentMail" (
    "id" TEXT NOT NULL,
    "sentAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SentMail_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "SentMail_sentAt_idx" ON "SentMail"("sentAt");
