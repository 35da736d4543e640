import { baseUrlOf, randomIp, type Server } from "./api";

export type TrpcAnswer = {
  status: number;
  data: any;
  error: { code: string; message: string; details?: { path: string; message: string }[] } | null;
  ms: number;
  text: string;
};

/**
 * A dashboard session cookie, through the log-in form that works without
 * JavaScript (the tRPC transport takes a session, never an Authorization header).
 */
export async function sessionCookie(email: string, password: string, opts: { server?: Server } = {}): Promise<string> {
  const base = baseUrlOf(opts.server);
  const res = await fetch(`${base}/login/submit`, {
    method: "POST",
    redirect: "manual",
    headers: { origin: base, "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": randomIp() },
    body: new URLSearchParams({ email, password }),
  });
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("next-auth.session-token="));
  if (res.status !== 303 || !cookie) throw new Error(`log-in failed: ${res.status} ${res.headers.get("location")}`);
  return cookie.split(";")[0]!;
}

/** One tRPC procedure over HTTP, as the dashboard calls it (a mutation is a POST of its input). */
export async function trpc(
  kind: "query" | "mutation",
  path: string,
  input: unknown,
  opts: { server?: Server; cookie?: string; ip?: string } = {},
): Promise<TrpcAnswer> {
  const headers: Record<string, string> = { "x-forwarded-for": opts.ip ?? randomIp() };
  if (opts.cookie) headers.cookie = opts.cookie;
  const base = `${baseUrlOf(opts.server)}/api/trpc/${path}`;
  const started = performance.now();
  const res =
    kind === "query"
      ? await fetch(input === undefined ? base : `${base}?input=${encodeURIComponent(JSON.stringify(input))}`, {
          headers,
        })
      : await fetch(base, {
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          body: JSON.stringify(input ?? {}),
        });
  const text = await res.text();
  const ms = performance.now() - started;
  const body = JSON.parse(text);
  return { status: res.status, data: body.result?.data ?? null, error: body.error?.data?.appError ?? null, ms, text };
}
