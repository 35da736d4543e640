-- Idempotency request hashes are now an HMAC with a server key (docs/decisions.md §20). A stored
-- unkeyed SHA-256 of a body can be reversed by a dictionary (the password in a register or
-- login body) and cannot be converted to the keyed form, so every record goes: deleted, not
-- expired, because an expired row would keep the reversible hash until pruned. Records live
-- 24 hours, so a client retrying a request from before this migration with the same key runs it again.
DELETE FROM "IdempotencyKey";
