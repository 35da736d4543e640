-- AlterTable
ALTER TABLE "Account" ADD COLUMN     "routingVersion" BIGINT NOT NULL DEFAULT 0;

-- What an engine instance may cache of an account's routing (src/server/engine/routing-cache.ts) is
-- good while "routingVersion" is unchanged, so every change that could alter a voice request's
-- routing bumps it, in the writing transaction itself: any change of the account's row, and any
-- insert, update or delete of its numbers, its Twilio connection or its limits. Triggers, so that no
-- write path can forget it. Left out, because they change per call or per reconciliation run and
-- route nothing: AccountLimit's "liveCalls" (admission's counter) and TwilioConnection's
-- "reconciledThrough". A table added later that decides how a voice request is routed needs the
-- same trigger, or an instance's cache would route on without seeing its changes.
CREATE FUNCTION routekit_bump_routing_version() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."routingVersion" = OLD."routingVersion" THEN
    NEW."routingVersion" := OLD."routingVersion" + 1;
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER "Account_routingVersion" BEFORE UPDATE ON "Account"
FOR EACH ROW EXECUTE FUNCTION routekit_bump_routing_version();

CREATE FUNCTION routekit_bump_owner_routing_version() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE "Account" SET "routingVersion" = "routingVersion" + 1 WHERE "id" = OLD."accountId";
  END IF;
  IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR NEW."accountId" IS DISTINCT FROM OLD."accountId") THEN
    UPDATE "Account" SET "routingVersion" = "routingVersion" + 1 WHERE "id" = NEW."accountId";
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "PhoneNumber_routingVersion" AFTER INSERT OR DELETE ON "PhoneNumber"
FOR EACH ROW EXECUTE FUNCTION routekit_bump_owner_routing_version();
CREATE TRIGGER "PhoneNumber_routingVersion_update" AFTER UPDATE ON "PhoneNumber"
FOR EACH ROW WHEN ((to_jsonb(OLD) - 'updatedAt') IS DISTINCT FROM (to_jsonb(NEW) - 'updatedAt'))
EXECUTE FUNCTION routekit_bump_owner_routing_version();

CREATE TRIGGER "TwilioConnection_routingVersion" AFTER INSERT OR DELETE ON "TwilioConnection"
FOR EACH ROW EXECUTE FUNCTION routekit_bump_owner_routing_version();
CREATE TRIGGER "TwilioConnection_routingVersion_update" AFTER UPDATE ON "TwilioConnection"
FOR EACH ROW WHEN ((to_jsonb(OLD) - 'reconciledThrough') IS DISTINCT FROM (to_jsonb(NEW) - 'reconciledThrough'))
EXECUTE FUNCTION routekit_bump_owner_routing_version();

CREATE TRIGGER "AccountLimit_routingVersion" AFTER INSERT OR DELETE ON "AccountLimit"
FOR EACH ROW EXECUTE FUNCTION routekit_bump_owner_routing_version();
CREATE TRIGGER "AccountLimit_routingVersion_update" AFTER UPDATE ON "AccountLimit"
FOR EACH ROW WHEN ((to_jsonb(OLD) - 'liveCalls' - 'updatedAt') IS DISTINCT FROM (to_jsonb(NEW) - 'liveCalls' - 'updatedAt'))
EXECUTE FUNCTION routekit_bump_owner_routing_version();
