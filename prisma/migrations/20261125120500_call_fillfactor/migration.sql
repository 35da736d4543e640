-- Every inbound call's row is written twice within milliseconds: inserted at the voice request, then
-- given its answer and TwiML once the answer is on its way (engine/call-log.ts). That update touches
-- no indexed column, so PostgreSQL can keep it on the row's page without touching Call's four indexes
-- (a HOT update), but only if the page has room for the longer row: under side-by-side's voice-max,
-- 12 % of these updates found none and wrote a new entry in every index. Pages filled to 90 % keep that
-- room. Not in schema.prisma, which has no notation for storage parameters; the migration check ignores it.
ALTER TABLE "Call" SET (fillfactor = 90);
