import { z } from "zod";
import { AppError } from "../../errors/app-error";
import { notReadyMessage, readiness } from "../../health/readiness";
import { restProcedure } from "../rest-procedure";
import { publicProcedure } from "../init";
import { boundedInt, countInt, outputMessage, SAFE_INT_MAX } from "../../../shared/schemas/bounds";

export const system = {
  /** Liveness: the process answers. */
  health: restProcedure(publicProcedure, {
    method: "GET",
    path: "/api/health",
    needs: "none",
    summary: "Liveness",
    database: false,
    output: z.object({ status: z.literal("ok").describe("The process answers") }),
    examples: { response: { status: "ok" } },
  }).query(() => ({ status: "ok" as const })),
  /** Readiness: the database answers, the journal can take a final status; Redis named when configured. Served by the custom server (http/readiness-route.ts) on REST. */
  ready: restProcedure(publicProcedure, {
    method: "GET",
    path: "/api/ready",
    needs: "none",
    summary:
      "Readiness: database reachable, journal writable with free space (503 names what is wrong; Redis is named, never unready)",
    errors: [503],
    output: z.object({
      status: z.literal("ready").describe("The instance can serve"),
      checks: z
        .object({
          database: outputMessage().describe('"ok" or what is wrong'),
          journal: outputMessage().describe('"ok" or what is wrong: "read-only: EROFS…", "low on space: …"'),
          redis: outputMessage()
            .optional()
            .describe('Only when REDIS_URL is set: "ok", or "unreachable (…), rate limits on PostgreSQL"'),
          instance: outputMessage()
            .optional()
            .describe(
              'Only in the 503 while the instance stops (SIGTERM): "shutting down"; in-flight work finishes within SHUTDOWN_GRACE_MS',
            ),
        })
        .describe('Each dependency, "ok" or what is wrong'),
      journal: z
        .object({
          writable: z.boolean().describe("Whether a file can be written in the journal's directory"),
          freeBytes: z.number().nullable().describe("Free space on the journal's disk"),
          depth: countInt().describe("Final statuses waiting in the journal for the database"),
          oldestAgeSeconds: boundedInt(-SAFE_INT_MAX, SAFE_INT_MAX)
            .nullable()
            .describe("Age of the oldest waiting status (negative only if the clock went back)"),
        })
        .describe("The local journal of final statuses"),
    }),
    examples: {
      response: {
        status: "ready",
        checks: { database: "ok", journal: "ok", redis: "ok" },
        journal: { writable: true, freeBytes: 41_231_872_000, depth: 0, oldestAgeSeconds: null },
      },
    },
  }).query(async () => {
    const r = await readiness();
    if (!r.ready) throw new AppError("SERVICE_UNAVAILABLE", notReadyMessage(r), { retryAfter: 5 });
    return { status: "ready" as const, checks: r.checks, journal: r.journal };
  }),
};
