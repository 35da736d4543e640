-- AlterTable
ALTER TABLE "Call" ADD COLUMN     "reportedDurationSeconds" INTEGER;

-- AlterTable
ALTER TABLE "WebhookDelivery" ADD COLUMN     "redeliveredAt" TIMESTAMPTZ(3);
