-- Every call says why it ended (docs/decisions.md §14): the reason, and the carrier's codes when Twilio sent them.
-- AlterTable
ALTER TABLE "Call" ADD COLUMN     "endReason" TEXT,
ADD COLUMN     "sipResponseCode" INTEGER,
ADD COLUMN     "twilioErrorCode" INTEGER;

-- Calls that ended before this migration get the reason their row already tells: closed from Twilio's
-- call record → reconciled; rejected → the rejection's code; otherwise Twilio's final status. Carrier
-- codes were never kept, so they stay null.
UPDATE "Call" SET "endReason" = CASE
    WHEN "status" = 'rejected' THEN CASE "errorCode"
      WHEN 'ACCOUNT_SUSPENDED' THEN 'account-suspended'
      WHEN 'PAYMENT_REQUIRED' THEN 'account-inactive'
      ELSE 'not-registered'
    END
    WHEN "reconciledAt" IS NOT NULL THEN 'reconciled'
    ELSE "status"
  END
WHERE "statusRank" >= 10
  AND "status" IN ('completed', 'busy', 'no-answer', 'failed', 'canceled', 'rejected');
