-- AlterTable
ALTER TABLE "Call" ADD COLUMN     "voiceRequestAt" TIMESTAMPTZ(3),
ADD COLUMN     "voiceRequestStatus" TEXT;
