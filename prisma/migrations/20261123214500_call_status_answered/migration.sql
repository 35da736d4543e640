-- Twilio's `answered` status event is a call in progress: the engine now stores it as
-- `in-progress` (the status the API shows), so calls stored before say so too.
UPDATE "Call" SET "status" = 'in-progress' WHERE "status" = 'answered';
