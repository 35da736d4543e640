import type { KnipConfig } from "knip";

/**
 * knip, in `npm run lint`: no file that nothing imports, no export that no other file imports, no dependency that
 * nothing uses (CONTRIBUTING.md, "No dead exports"). Its Next.js, Vitest and Playwright plugins find the app's
 * routes and pages, the unit and integration projects with their global setup, and the browser suite; the entry
 * points they cannot know are listed here.
 */
const config: KnipConfig = {
  entry: [
    // The Twilio simulator's command line (npm run twilio-sim); the custom server comes in through `npm run dev`.
    "src/twilio-simulator/cli.ts",
    // Each script and benchmark is run by hand or by CI (`npx tsx bench/<name>.ts`).
    "scripts/**/*.{ts,mjs}",
    "bench/*.ts",
    "bench/support/*.{ts,mjs}",
    "bench/reference/*.mjs",
    // Processes the integration tests start by path, and the files the unit tests read or run.
    "tests/support/delivery-worker-process.ts",
    "tests/unit/fixtures/*.ts",
  ],
  project: [
    "src/**/*.{ts,tsx,css}",
    "prisma/*.prisma",
    "scripts/**/*.{ts,mjs}",
    "bench/**/*.{ts,mjs}",
    "tests/**/*.ts",
    "e2e/**/*.ts",
  ],
  // Tailwind is imported from the stylesheet (`@import "tailwindcss"` in src/app/globals.css).
  compilers: {
    css: (text: string) => [...text.matchAll(/(?<=@)import[^;]+/g)].join("\n"),
  },
  ignoreDependencies: [
    // /docs serves its browser bundle, read from node_modules by path (src/app/docs/scalar.js/route.ts).
    "@scalar/api-reference",
  ],
  ignoreBinaries: [
    // Installed from Debian's packages where they are used: bench/instructions-per-request.ts counts with
    // perf or valgrind, and tests/integration/redis-outage.test.ts starts its own Redis.
    "perf",
    "callgrind_control",
    "redis-server",
  ],
  ignoreIssues: {
    // issue #42 / lead: remove. Exports that no other file imports, in files this check's author could not
    // change while they were being rewritten: each is used only in its own file (drop its `export`) or not
    // at all (drop it), then its line goes. The list only shrinks; empty, it goes.
    //
    // The event delivery rewrite (issue #42):
    "src/server/health/metrics-route.ts": ["exports"], // metricsVisibleTo
    "src/server/jobs/job-queue.ts": ["exports"], // MAINTENANCE_INTERVAL_SECONDS, RETENTION, WAKE_COALESCE_MS
    "src/server/jobs/delivery-queue/postgres-delivery-queue.ts": ["exports"], // DELIVERY_LEASE_SECONDS
    "src/server/services/deliveries/attempt-delivery.ts": ["exports", "types"], // ATTEMPT_TIMEOUT_MS, EXCERPT_BYTES, RECORD_RETRY_MS; type AttemptTarget
    "src/server/services/deliveries/replay-deliveries.ts": ["exports"], // REPLAY_WINDOW_MS
    "src/server/services/deliveries/sample-event.ts": ["exports"], // TEST_CALL_SID
    "src/server/services/deliveries/webhook-deliveries.ts": ["exports"], // REDELIVER_WINDOW_SECONDS, REPLAY_MAX_DELIVERIES, redeliverOne
    "src/server/webhooks/enqueue-event.ts": ["exports", "types"], // insertDeliveries; type WrittenDelivery
    "src/server/webhooks/http/callback-http-client.ts": ["exports", "types"], // connectionFailure; type CallbackRequest
    "src/server/webhooks/post-call-started.ts": ["exports"], // START_RESPONSE_MAX_BYTES
    "src/server/webhooks/webhook-signature.ts": ["exports"], // signatureFor
    "src/server/workers/delivery-worker.ts": ["exports"], // ATTEMPT_RETENTION_DAYS, MAX_IN_FLIGHT, RESERVED_SLOTS, FAST_ANSWER_MS, BACKOFF_SPREAD_MS
    // The route contract (issue #43, src/server/trpc and src/server/openapi):
    "src/server/openapi/build-openapi.ts": ["exports"], // TAGS
    "src/server/trpc/rest-procedure.ts": ["types"], // types RestMeta, RouteExamples
    "src/server/trpc/init.ts": ["types"], // type ProcedureMeta
    // The shared test support (issue #43, tests/support):
    "tests/support/accounts.ts": ["exports"], // PASSWORD
    "tests/support/receiver.ts": ["exports"], // eventViolation
  },
};

export default config;
