import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { randomUsNumber } from "./api";

/**
 * JSON over HTTP to a server a test started itself (not one of the global setup's, which `call` in
 * api.ts reaches): a client address of its own on each request, as the servers run with TRUST_PROXY.
 */
export function jsonClient(baseUrl: string) {
  return async (method: string, path: string, body?: unknown, token?: string) => {
    const res = await fetch(baseUrl + path, {
      method,
      headers: {
        "content-type": "application/json",
        "x-forwarded-for": `198.18.${200 + (randomBytes(1)[0]! % 50)}.${(randomBytes(1)[0]! % 250) + 1}`,
        ...(token && { authorization: `Bearer ${token}` }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
}

/**
 * An active account with one number whose callbacks go to `backend` (`/start` and `/end`), on a server of
 * the test's own. Links the server hands out name its PUBLIC_BASE_URL; with `via` (a load balancer in
 * front of it) they are followed there instead.
 */
export async function activeCustomerOn(
  baseUrl: string,
  backend: { url(path: string): string },
  opts: { tag: string; via?: string },
) {
  const json = jsonClient(baseUrl);
  const registered = await json("POST", "/api/auth/register", {
    email: `${opts.tag}-${randomBytes(6).toString("hex")}@example.com`,
    password: `pw-${randomBytes(8).toString("hex")}`,
  });
  expect(registered.status).toBe(201);
  const { apiKey, engineVoiceUrl, checkoutUrl } = registered.body as {
    apiKey: string;
    engineVoiceUrl: string;
    checkoutUrl: string;
  };
  const link = (url: string) => (opts.via ? opts.via + new URL(url).pathname + new URL(url).search : url);
  // Local billing mode: the checkout page's Pay button POSTs to its own URL (docs/decisions.md §4).
  expect((await fetch(link(checkoutUrl), { method: "POST", redirect: "manual" })).status).toBe(303);
  const number = randomUsNumber();
  const created = await json(
    "POST",
    "/api/phone-numbers",
    { phoneNumber: number, onCallStartUrl: backend.url("/start"), onCallEndUrl: backend.url("/end") },
    apiKey,
  );
  expect(created.status).toBe(201);
  return { apiKey, engineVoiceUrl: link(engineVoiceUrl), number };
}
