import { z } from "zod";
import { AppError } from "../../errors/app-error";
import { db } from "../../db/client";
import { publicProcedure, router } from "../init";

export const systemRouter = router({
  /** Liveness: the process answers. */
  health: publicProcedure.output(z.object({ status: z.literal("ok") })).query(() => ({ status: "ok" as const })),
  /** Readiness: the database answers. */
  ready: publicProcedure.output(z.object({ status: z.literal("ready") })).query(async () => {
    try {
      await db().$queryRaw`SELECT 1`;
    } catch (err) {
      throw new AppError("SERVICE_UNAVAILABLE", "The database is not reachable.", { cause: err });
    }
    return { status: "ready" as const };
  }),
});
