import { EventEmitter } from "node:events";
import { createServer, type Server } from "node:http";
import next from "next";
import { boot } from "./boot";
import { stopJobQueue, stopTakingJobs } from "./jobs/job-queue";
import { markShuttingDown } from "./health/shutdown-state";
import { startJobWorkers } from "./workers/start-job-workers";
import { EnvError } from "./env";
import { loggablePath, writeErrorResponse } from "./http/error-response";
import { passInputBoundary } from "./http/input-boundary";
import { applySecurityHeaders, securityHeaders } from "./http/security-headers";
import {
  HEADERS_TIMEOUT_MS,
  REQUEST_TIMEOUT_MS,
  TIMEOUT_CHECK_INTERVAL_MS,
  answerClientError,
  refuseConnect,
  refuseUpgrade,
} from "./http/client-error";
import { ENGINE_PATH_PREFIX, serveEngine } from "./engine/engine-route";
import { startFinalStatusReplay } from "./engine/final-status-journal";
import { REQUEST_ID_HEADER, stampRequestContext } from "./http/request-context";
import { logger, requestLogger } from "./logger";
import { rateLimitStore } from "./rate-limit/rate-limiter";
import { drainCallLogWrites } from "./engine/write-later";
import { startJournalMonitor } from "./engine/journal-health";
import { databaseAvailability, retryUntilDone } from "./db/database-availability";
import { isReadinessRequest, serveReadiness, serveWhileDatabaseDown } from "./health/readiness-route";
import { metrics } from "./metrics/metrics";
import { isMetricsRequest, serveMetrics } from "./health/metrics-route";
import { routeLabel } from "./http/route-label";
import { traceRequests } from "./http/http-spans";
import { isListenUpgrade, serveListenUpgrade } from "./listen/listen-route";
import { listenHub } from "./webhooks/listen/listen-hub";

/**
 * Why a custom server around Next.js: the engine answers Twilio straight from
 * node:http, inside its budget, and every request is stamped with its id and
 * client address once, here. Measured (bench/engine-via-next.ts, docs/adr/0001,
 * docs/performance.md): as a Next.js route handler a voice request costs 1–1.8 ms
 * more CPU and its p99 nears the 15 ms target. The rule that comes with it: the Next.js
 * bundles are a second module graph in this process, so anything that must
 * exist once per process is made through runtime/remember.ts.
 */
/** The methods a metric names; anything else a client sends is counted as OTHER. */
const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

async function main(): Promise<void> {
  let booted;
  try {
    booted = await boot();
  } catch (err) {
    if (err instanceof EnvError) {
      console.error(err.message);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
  const { env: e } = booted;
  const log = logger();
  const requestLog = requestLogger();

  let stopping = false;
  // The job workers and the journal's replay need the database: at once when it is there, else when it comes back (a degraded start).
  const startDatabaseWork = async () => {
    await startJobWorkers();
    // The relay of `routekit listen` (docs/decisions.md §19): this instance's inbox from the others.
    listenHub().start();
    // Final statuses an outage left in this instance's journal (docs/decisions.md §7).
    startFinalStatusReplay();
  };
  const database = databaseAvailability();
  if (database.up) await startDatabaseWork();
  else {
    void booted.databaseUp.then(
      (up) =>
        up &&
        retryUntilDone(
          "job workers' start",
          () =>
            startDatabaseWork().catch(async (err: unknown) => {
              // A queue half started is stopped, so the next attempt starts it whole.
              await stopJobQueue().catch(() => undefined);
              throw err;
            }),
          { stopped: () => stopping },
        ),
    );
  }
  startJournalMonitor();

  const app = next({
    // Next.js adds an 'upgrade' listener of its own to the server of its first request, which would also take (and
    // close) `/api/listen`'s sockets: it attaches to this stand-in, and the server hands it only the upgrades that are its.
    httpServer: new EventEmitter() as Server,
    dev: e.nodeEnv === "development",
    dir: process.cwd(),
    port: e.port,
    hostname: e.host ?? "0.0.0.0",
  });
  await app.prepare();
  const handle = app.getRequestHandler();

  const headersForEveryAnswer = securityHeaders(e.publicBaseUrl);
  const { httpRequests, httpDuration } = metrics();
  // Node checks both timeouts only every connectionsCheckingInterval (30 s by default).
  // traceRequests: each request in a server span when tracing is on; off, the listener as it is.
  const server = createServer(
    {
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    },
    traceRequests((req, res) => {
      const started = performance.now();
      const { requestId, ip } = stampRequestContext(req, e.trustProxy);
      res.setHeader(REQUEST_ID_HEADER, requestId);
      applySecurityHeaders(res, headersForEveryAnswer);
      res.on("finish", () => {
        const path = loggablePath(req.url);
        const entry = {
          requestId,
          method: req.method,
          path,
          status: res.statusCode,
          ms: Math.round((performance.now() - started) * 10) / 10,
          ip,
        };
        if (path.startsWith("/api/")) requestLog.info(entry, "request");
        else requestLog.debug(entry, "request");
        const route = routeLabel(req.url, res.statusCode);
        const method = req.method && KNOWN_METHODS.has(req.method) ? req.method : "OTHER";
        httpRequests.inc({ route, method, status: res.statusCode });
        httpDuration.observe({ route }, entry.ms / 1000);
      });
      passInputBoundary(req, res, requestId, { bodyAsBytes: req.url?.startsWith(ENGINE_PATH_PREFIX) }).then(
        (passed) => {
          if (!passed) return;
          // The engine is Twilio's, answered within its budget: it skips Next.js.
          if (passed.url?.startsWith(ENGINE_PATH_PREFIX)) void serveEngine(passed, res, requestId);
          else if (isMetricsRequest(passed))
            void serveMetrics(passed, res, requestId).catch((err: unknown) =>
              writeErrorResponse(err, passed, res, requestId),
            );
          else if (isReadinessRequest(passed))
            void serveReadiness(passed, res, requestId).catch((err: unknown) =>
              writeErrorResponse(err, passed, res, requestId),
            );
          // Until the database is first reached, nothing else can be served (a degraded start): 503, liveness aside.
          else if (!database.up) serveWhileDatabaseDown(passed, res, requestId);
          else void handle(passed, res);
        },
        (err: unknown) => writeErrorResponse(err, req, res, requestId),
      );
    }),
  );
  server.keepAliveTimeout = 65_000;
  server.on("clientError", (err: Error, socket) => answerClientError(err, socket, headersForEveryAnswer));
  server.on("connect", (req, socket) => refuseConnect(req, socket, headersForEveryAnswer));
  // `GET /api/listen` (docs/api.md) is the one WebSocket of the API; any other upgrade is Next.js's (its dev reload).
  const nextUpgrade = app.getUpgradeHandler();
  server.on("upgrade", (req, socket, head) => {
    if (!isListenUpgrade(req)) return void nextUpgrade(req, socket, head);
    if (stopping || !database.up)
      return refuseUpgrade(
        socket,
        {
          status: 503,
          headers: { "retry-after": "5" },
          body: {
            error: { code: "SERVICE_UNAVAILABLE", message: "This instance is not taking listeners now; retry." },
          },
        },
        headersForEveryAnswer,
      );
    void serveListenUpgrade(req, socket, head, headersForEveryAnswer);
  });

  // Idle buckets are full again and carry nothing; every instance may prune, it is idempotent.
  const store = rateLimitStore();
  const prune = setInterval(() => {
    store.prune?.().catch((err: unknown) => log.warn({ err }, "rate-limit prune failed"));
  }, 10 * 60_000);
  prune.unref();
  // A port taken or refused (EADDRINUSE, EACCES) is fatal: stop the workers, so no headless instance keeps delivering, and exit non-zero.
  server.once("error", (err: NodeJS.ErrnoException) => {
    log.fatal({ code: err.code, port: e.port }, "Routekit could not listen");
    const exit = () => process.exit(1);
    setTimeout(exit, 15_000).unref();
    void stopJobQueue()
      .then(() => booted.shutdown())
      .finally(exit);
  });
  // The Node.js version is in the line so a deployment shows which runtime it really got (package.json pins 24).
  // HOST=127.0.0.1 keeps a development box off the network; unset, every interface (a container behind its load balancer).
  const listening = () =>
    log.info(
      { url: e.publicBaseUrl, host: e.host ?? "*", port: e.port, node: process.version },
      "Routekit is listening",
    );
  if (e.host) server.listen(e.port, e.host, listening);
  else server.listen(e.port, listening);

  /**
   * A graceful stop (docs/operations.md): readiness answers 503 at once; on
   * SIGTERM the instance goes on serving for SHUTDOWN_DRAIN_MS, long enough for
   * the load balancer's checks to take it out of rotation (a connection refused
   * in between could be retried on this same instance and fail); then the
   * listener closes, so new connections go to other instances (a load balancer
   * retries a refused connection elsewhere); idle keep-alive connections are
   * closed and busy ones after their answer; no job is taken any more while the
   * attempts in flight finish. Then the call log's writes land, the queue and
   * the pool close, and the process exits 0. SHUTDOWN_GRACE_MS bounds it all:
   * what is still unfinished then (a delivery's lease, a journaled status) is
   * resumed by another instance, as after a crash.
   */
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    markShuttingDown();
    const startedAt = performance.now();
    // Ctrl-C at a terminal has no load balancer to wait for.
    const drainMs = signal === "SIGTERM" ? e.shutdownDrainMs : 0;
    log.info(
      { signal, graceMs: e.shutdownGraceMs, drainMs },
      "shutting down: not ready, serving on while the load balancer notices, then finishing in-flight work",
    );
    setTimeout(() => {
      log.warn({ graceMs: e.shutdownGraceMs }, "shutdown grace over: exiting; another instance resumes what was left");
      process.exit(0);
    }, e.shutdownGraceMs).unref();
    // No job is taken from now on; the attempts in flight finish meanwhile.
    const jobsStopped = stopTakingJobs();
    // Listeners are told at once (1001) and reconnect to another instance; their rows go with them.
    const listenersClosed = listenHub().stop();
    setTimeout(() => finish(startedAt, Promise.all([jobsStopped, listenersClosed])), drainMs);
  };
  const finish = (startedAt: number, jobsStopped: Promise<unknown>) => {
    const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    // A keep-alive connection whose request was in flight at close becomes idle after its answer.
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    sweep.unref();
    void Promise.all([serverClosed, jobsStopped])
      .then(() => clearInterval(sweep))
      // The call log's writes after each answer (engine/call-log.ts) land before the pool closes.
      .then(() => drainCallLogWrites(5_000))
      .then(stopJobQueue)
      .then(() => booted.shutdown())
      .then(
        () => log.info({ ms: Math.round(performance.now() - startedAt) }, "shut down cleanly"),
        (err: unknown) => log.error({ err }, "shutdown failed part way; exiting"),
      )
      .finally(() => process.exit(0));
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

main().catch((err: unknown) => {
  console.error("Routekit failed to start:", err instanceof Error ? err.message : err);
  process.exit(1);
});
