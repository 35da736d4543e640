-- Ids and timestamps come from the database, so a plain insert needs neither.
--
-- Ids keep the shape Prisma's cuid() gave them (25 characters: 'c' and 24 of
-- [0-9a-z]), so old and new ids look alike: 'c', the time in microseconds (10
-- base-36 digits, so ids sort by creation), then 14 random digits.
CREATE FUNCTION routekit_base36(n bigint, width integer) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$
    SELECT string_agg(substr('0123456789abcdefghijklmnopqrstuvwxyz', ((n / (36::numeric ^ (width - i))::bigint) % 36)::integer + 1, 1), '' ORDER BY i)
    FROM generate_series(1, width) AS i
  $$;

CREATE FUNCTION routekit_id() RETURNS text
  LANGUAGE sql VOLATILE PARALLEL SAFE
  AS $$
    SELECT 'c' || routekit_base36(floor(extract(epoch FROM clock_timestamp()) * 1000000)::bigint, 10)
      || routekit_base36(floor(random() * 78364164096)::bigint, 7)
      || routekit_base36(floor(random() * 78364164096)::bigint, 7)
  $$;

-- Every DateTime becomes timestamptz: the columns held UTC wall time (timestamp(3)), read here as UTC.
-- AlterTable
ALTER TABLE "Account" ALTER COLUMN "id" SET DEFAULT routekit_id(),
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DEFAULT CURRENT_TIMESTAMP,
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC',
ALTER COLUMN "previousWebhookSecretExpiresAt" SET DATA TYPE TIMESTAMPTZ(3) USING "previousWebhookSecretExpiresAt" AT TIME ZONE 'UTC',
ALTER COLUMN "billingStateAt" SET DATA TYPE TIMESTAMPTZ(3) USING "billingStateAt" AT TIME ZONE 'UTC',
ALTER COLUMN "currentPeriodEnd" SET DATA TYPE TIMESTAMPTZ(3) USING "currentPeriodEnd" AT TIME ZONE 'UTC',
ALTER COLUMN "currentPeriodStart" SET DATA TYPE TIMESTAMPTZ(3) USING "currentPeriodStart" AT TIME ZONE 'UTC',
ALTER COLUMN "previousRoutingTokenExpiresAt" SET DATA TYPE TIMESTAMPTZ(3) USING "previousRoutingTokenExpiresAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "ApiKey" ALTER COLUMN "id" SET DEFAULT routekit_id(),
ALTER COLUMN "lastUsedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "lastUsedAt" AT TIME ZONE 'UTC',
ALTER COLUMN "revokedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "revokedAt" AT TIME ZONE 'UTC',
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "BillingLinkUse" ALTER COLUMN "usedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "usedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "Call" ALTER COLUMN "id" SET DEFAULT routekit_id(),
ALTER COLUMN "answeredAt" SET DATA TYPE TIMESTAMPTZ(3) USING "answeredAt" AT TIME ZONE 'UTC',
ALTER COLUMN "endedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "endedAt" AT TIME ZONE 'UTC',
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DEFAULT CURRENT_TIMESTAMP,
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC',
ALTER COLUMN "lastRequestAt" SET DATA TYPE TIMESTAMPTZ(3) USING "lastRequestAt" AT TIME ZONE 'UTC',
ALTER COLUMN "reconciledAt" SET DATA TYPE TIMESTAMPTZ(3) USING "reconciledAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "CallRequest" ALTER COLUMN "at" SET DATA TYPE TIMESTAMPTZ(3) USING "at" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "IdempotencyKey" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "expiresAt" SET DATA TYPE TIMESTAMPTZ(3) USING "expiresAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "PhoneNumber" ALTER COLUMN "id" SET DEFAULT routekit_id(),
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DEFAULT CURRENT_TIMESTAMP,
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "RateLimitBucket" ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "StripeEvent" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "TwilioConnection" ALTER COLUMN "connectedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "connectedAt" AT TIME ZONE 'UTC',
ALTER COLUMN "reconciledThrough" SET DATA TYPE TIMESTAMPTZ(3) USING "reconciledThrough" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "UsageRecord" ALTER COLUMN "id" SET DEFAULT routekit_id(),
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "UsageTotal" ALTER COLUMN "updatedAt" SET DEFAULT CURRENT_TIMESTAMP,
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "WebhookAttempt" ALTER COLUMN "id" SET DEFAULT routekit_id(),
ALTER COLUMN "attemptedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "attemptedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "WebhookDelivery" ALTER COLUMN "id" SET DEFAULT routekit_id(),
ALTER COLUMN "nextAttemptAt" SET DATA TYPE TIMESTAMPTZ(3) USING "nextAttemptAt" AT TIME ZONE 'UTC',
ALTER COLUMN "lastAttemptAt" SET DATA TYPE TIMESTAMPTZ(3) USING "lastAttemptAt" AT TIME ZONE 'UTC',
ALTER COLUMN "deliveredAt" SET DATA TYPE TIMESTAMPTZ(3) USING "deliveredAt" AT TIME ZONE 'UTC',
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DEFAULT CURRENT_TIMESTAMP,
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "WebhookEndpointHealth" ALTER COLUMN "id" SET DEFAULT routekit_id(),
ALTER COLUMN "backoffUntil" SET DATA TYPE TIMESTAMPTZ(3) USING "backoffUntil" AT TIME ZONE 'UTC',
ALTER COLUMN "lastFailureAt" SET DATA TYPE TIMESTAMPTZ(3) USING "lastFailureAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';
