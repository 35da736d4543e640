-- A voice request ran five foreign-key checks where the bare reference runs one, and three of them
-- locked the same rows on every call: the account's (twice: the call, its call.started delivery) and
-- the number's. Each check is a query of its own and a row lock, a WAL record, and under concurrent
-- calls a MultiXact, on the one row every call of the account shares. What these keys protected, the
-- app already guarantees: accounts are never deleted (a closed account keeps its row, with its calls
-- and deliveries, for the history), and releasing a number clears its calls' phoneNumberId itself
-- (services/phone-numbers/release-phone-number.ts), as ON DELETE SET NULL did.
-- bench/statements-per-request.ts, one voice request: 8.3 -> 5.4 statements, 27.9 -> 23.4 WAL records.
-- DropForeignKey
ALTER TABLE "Call" DROP CONSTRAINT "Call_accountId_fkey";

-- DropForeignKey
ALTER TABLE "Call" DROP CONSTRAINT "Call_phoneNumberId_fkey";

-- DropForeignKey
ALTER TABLE "WebhookDelivery" DROP CONSTRAINT "WebhookDelivery_accountId_fkey";
