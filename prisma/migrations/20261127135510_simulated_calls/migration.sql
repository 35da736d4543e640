-- AlterTable
ALTER TABLE "Call" ADD COLUMN     "test" BOOLEAN NOT NULL DEFAULT false;
