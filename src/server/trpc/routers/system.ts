import { z } from "zod";
import { AppError } from "../../errors/app-error";
import { sql } from "kysely";
import { kysely } from "../../db/kysely";
import { restProcedure } from "../../rest/rest-procedure";
import { publicProcedure } from "../init";

export const system = {
  /** Liveness: the process answers. */
  health: restProcedure(publicProcedure, {
    method: "GET",
    path: "/api/health",
    auth: false,
    summary: "Liveness",
    database: false,
    output: z.object({ status: z.literal("ok").describe("The process answers") }),
  }).query(() => ({ status: "ok" as const })),
  /** Readiness: the database answers. */
  ready: restProcedure(publicProcedure, {
    method: "GET",
    path: "/api/ready",
    auth: false,
    summary: "Readiness (database reachable)",
    output: z.object({ status: z.literal("ready").describe("The database answers") }),
  }).query(async () => {
    try {
      await sql`SELECT 1`.execute(kysely());
    } catch (err) {
      throw new AppError("SERVICE_UNAVAILABLE", "The database is not reachable.", { cause: err });
    }
    return { status: "ready" as const };
  }),
};
