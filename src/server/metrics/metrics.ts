import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { remember } from "../runtime/remember";

/**
 * The process's Prometheus metrics (docs/operations.md, "Metrics"): one
 * registry per process (runtime/remember.ts: the Next.js bundles count into
 * the same one as the custom server). Names and labels follow Prometheus'
 * conventions: `routekit_` prefix, base units (seconds), `_total` counters.
 * No label ever holds a customer's id, a URL or a phone number: every label's
 * values are a short fixed list, so a scrape stays small however many
 * customers there are.
 */
export type Metrics = ReturnType<typeof createMetrics>;

/** Seconds, from 1 ms to 15 s (Twilio's whole budget). */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15];

function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Gauges named like counters, which promtool's lint refuses: each is the sum of its by-type sibling (nodejs_active_handles{type}, …).
  for (const name of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"])
    registry.removeSingleMetric(name);
  const m = {
    registry,
    httpRequests: new Counter({
      name: "routekit_http_requests_total",
      help: "HTTP requests answered, by route template, method and status code",
      labelNames: ["route", "method", "status"] as const,
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: "routekit_http_request_duration_seconds",
      help: "Time to answer an HTTP request, by route template",
      labelNames: ["route"] as const,
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    engineAnswers: new Counter({
      name: "routekit_engine_answers_total",
      help: "Voice requests answered, by what decided the call: xml, json-twiml, json-actions, fallback-url, fallback-actions, fallback-twiml, fallback (last resort or apology), reject",
      labelNames: ["form"] as const,
      registers: [registry],
    }),
    engineRouting: new Counter({
      name: "routekit_engine_routing_total",
      help: "New inbound calls' voice requests by how their routing was found: cached (this instance's cache, checked by the insert), stale (the entry was out of date, or the SID was already a call: read afresh), read (no cache entry)",
      labelNames: ["source"] as const,
      registers: [registry],
    }),
    engineOutageAnswers: new Counter({
      name: "routekit_engine_outage_answers_total",
      help: "Voice requests answered while the database was down (docs/decisions.md §7): asked (a number this instance had seen: its backend decided, the call journaled) or apology (a number it had not seen, or an outbound call's answer)",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    engineOverhead: new Histogram({
      name: "routekit_engine_overhead_seconds",
      help: "A voice request's time in Routekit itself: from its arrival to its answer, less the time spent waiting on customers' backends",
      buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.015, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers: [registry],
    }),
    backendAnswer: new Histogram({
      name: "routekit_backend_answer_seconds",
      help: "How long customers' backends took to answer call.started, by try (primary, retry, fallback-url)",
      labelNames: ["role"] as const,
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    rateLimitRejections: new Counter({
      name: "routekit_rate_limit_rejections_total",
      help: "Requests refused with 429 by a rate-limit bucket",
      registers: [registry],
    }),
    idempotentReplays: new Counter({
      name: "routekit_idempotency_replays_total",
      help: "Requests answered from a stored answer of the same Idempotency-Key",
      registers: [registry],
    }),
    deliveryAttempts: new Counter({
      name: "routekit_delivery_attempts_total",
      help: "Webhook delivery attempts, by outcome (delivered, retry, failed)",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    reconciliationRuns: new Counter({
      name: "routekit_reconciliation_runs_total",
      help: "Reconciliation runs against Twilio's call records, by outcome (ok, failed)",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    reconciliationCorrections: new Counter({
      name: "routekit_reconciliation_corrections_total",
      help: "Calls closed or recorded by reconciliation because Routekit had missed what Twilio knew",
      registers: [registry],
    }),
    mails: new Counter({
      name: "routekit_mail_total",
      help: "Account mail handed to the mail transport, by outcome (sent, failed)",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    dbPool: new Gauge({
      name: "routekit_db_pool_connections",
      help: "The process's PostgreSQL pool: connections by state (total, idle, in_use) and requests waiting for one (waiting)",
      labelNames: ["state"] as const,
      registers: [registry],
    }),
    journalDepth: new Gauge({
      name: "routekit_journal_depth",
      help: "Final statuses in this instance's journal, waiting for the database",
      registers: [registry],
    }),
    journalOldestAge: new Gauge({
      name: "routekit_journal_oldest_age_seconds",
      help: "Age of the oldest final status waiting in the journal (0 when empty)",
      registers: [registry],
    }),
    deliveryQueueDepth: new Gauge({
      name: "routekit_delivery_queue_depth",
      help: "Webhook deliveries due now or scheduled, not yet attempted (all instances)",
      labelNames: ["state"] as const,
      registers: [registry],
    }),
    deliveryQueueLag: new Gauge({
      name: "routekit_delivery_queue_lag_seconds",
      help: "How long the oldest delivery that is due has waited (0 when none is due)",
      registers: [registry],
    }),
    destinationsInBackoff: new Gauge({
      name: "routekit_delivery_destinations_in_backoff",
      help: "Destinations whose deliveries are held back after repeated failures (all instances)",
      registers: [registry],
    }),
  };
  return m;
}

export function metrics(): Metrics {
  return remember("metrics", createMetrics);
}
