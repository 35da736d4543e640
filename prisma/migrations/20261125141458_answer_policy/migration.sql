-- AlterTable
ALTER TABLE "Call" ADD COLUMN     "answerPolicy" JSONB;

-- AlterTable
ALTER TABLE "PhoneNumber" ADD COLUMN     "answerPolicy" JSONB;

-- AlterTable
ALTER TABLE "WebhookAttempt" ADD COLUMN     "outcome" TEXT,
ADD COLUMN     "role" TEXT;
