import { randomBytes } from "node:crypto";
import { env } from "../../env";

/** decisions §7: `{PUBLIC_BASE_URL}/api/engine/voice/{routingToken}`. */
export function engineVoiceUrl(routingToken: string): string {
  return `${env().publicBaseUrl}/api/engine/voice/${routingToken}`;
}

/** 192 random bits: unguessable, URL-safe. */
export function generateRoutingToken(): string {
  return "rt_" + randomBytes(24).toString("base64url");
}
