import { z } from "zod";
import { AppError } from "../../errors/app-error";
import { sql } from "kysely";
import { kysely } from "../../db/kysely";
import { publicProcedure, router } from "../init";

export const systemRouter = router({
  /** Liveness: the process answers. */
  health: publicProcedure.output(z.object({ status: z.literal("ok") })).query(() => ({ status: "ok" as const })),
  /** Readiness: the database answers. */
  ready: publicProcedure.output(z.object({ status: z.literal("ready") })).query(async () => {
    try {
      await sql`SELECT 1`.execute(kysely());
    } catch (err) {
      throw new AppError("SERVICE_UNAVAILABLE", "The database is not reachable.", { cause: err });
    }
    return { status: "ready" as const };
  }),
});
