import { env } from "../../env";
import type { CallbackUrlPolicyOptions } from "../../../shared/url-policy";

/** The policy as configured for this server (CALLBACK_ALLOW_PRIVATE). */
export function serverCallbackPolicy(): CallbackUrlPolicyOptions {
  return { allowPrivate: env().callbackAllowPrivate };
}
