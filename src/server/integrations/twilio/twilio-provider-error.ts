import { AppError } from "../../errors/app-error";
import { logger } from "../../logger";

/**
 * A Twilio REST failure as our error envelope: a 4xx from Twilio is a refusal
 * (400 PROVIDER_REJECTED with Twilio's code), anything else (no answer, a 5xx)
 * is Twilio being unavailable (502). Only the message is logged, never the request.
 */
export function toProviderError(err: unknown, doing: string): AppError {
  const e = err as { status?: unknown; code?: unknown; message?: unknown };
  if (typeof e?.status === "number" && e.status >= 400 && e.status < 500) {
    const message = typeof e.message === "string" ? e.message : "refused";
    const code = typeof e.code === "number" ? e.code : "error";
    return new AppError("PROVIDER_REJECTED", `Twilio refused to ${doing}: ${message}`, {
      details: [{ path: "provider", message: `${code}: ${message}` }],
    });
  }
  logger().warn({ err: err instanceof Error ? err.message : String(err), doing }, "Twilio unreachable");
  return new AppError("PROVIDER_UNAVAILABLE", `Twilio could not be reached to ${doing}; try again.`);
}
