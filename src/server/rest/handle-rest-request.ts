import { AppError } from "../errors/app-error";
import { toErrorResponse } from "../errors/to-error-response";
import { CLIENT_IP_HEADER } from "../http/client-ip";
import { REQUEST_ID_HEADER, requestIdFrom } from "../http/request-id";
import { logger } from "../logger";
import { createCaller } from "../trpc/root";
import type { Context } from "../trpc/init";
import { matchRoute } from "./match-route";
import { restRoutes } from "./routes";

export const MAX_BODY_BYTES = 64 * 1024;

async function readBody(req: Request): Promise<string> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) throw new AppError("PAYLOAD_TOO_LARGE");
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    // Chunked bodies declare no length: count as they arrive.
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      throw new AppError("PAYLOAD_TOO_LARGE");
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function parseJsonObject(text: string): Record<string, unknown> {
  if (!text.trim()) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new AppError("VALIDATION_FAILED", "The request body is not valid JSON.", {
      details: [{ path: "(body)", message: err instanceof Error ? err.message : "malformed JSON" }],
    });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new AppError("VALIDATION_FAILED", "The request body must be a JSON object.", {
      details: [{ path: "(body)", message: "expected a JSON object" }],
    });
  }
  return value as Record<string, unknown>;
}

type ProcedureFn = (input: unknown) => Promise<unknown>;

function resolveProcedure(caller: unknown, dotted: string): ProcedureFn {
  let node: unknown = caller;
  for (const part of dotted.split(".")) node = (node as Record<string, unknown>)[part];
  if (typeof node !== "function") throw new Error(`REST route points at unknown procedure ${dotted}`);
  return node as ProcedureFn;
}

function json(body: unknown, status: number, headers: Record<string, string>): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers },
  });
}

/** Adapts an HTTP request to a procedure call and its result (or error) to HTTP. Nothing more. */
export async function handleRestRequest(req: Request): Promise<Response> {
  const requestId = requestIdFrom(req.headers.get(REQUEST_ID_HEADER));
  const url = new URL(req.url);
  try {
    const match = matchRoute(restRoutes, req.method, url.pathname);
    if (match.kind === "not-found") throw new AppError("NOT_FOUND", `No such endpoint: ${req.method} ${url.pathname}`);
    if (match.kind === "method-not-allowed") {
      const mapped = toErrorResponse(new AppError("METHOD_NOT_ALLOWED", `${req.method} is not allowed on ${url.pathname}; use ${match.allow.join(", ")}.`));
      return json(mapped.body, mapped.status, { allow: match.allow.join(", "), [REQUEST_ID_HEADER]: requestId });
    }
    const { route, params } = match;
    const query = route.method === "GET" ? Object.fromEntries(url.searchParams) : {};
    const body = route.method === "GET" ? {} : parseJsonObject(await readBody(req));
    const ctx: Context = {
      requestId,
      ip: req.headers.get(CLIENT_IP_HEADER) ?? "unknown",
      authorization: req.headers.get("authorization"),
    };
    const result = await resolveProcedure(createCaller(ctx), route.procedure)({ ...query, ...body, ...params });
    return json(result, route.status, { [REQUEST_ID_HEADER]: requestId });
  } catch (err) {
    const mapped = toErrorResponse(err);
    if (mapped.unexpected) logger().error({ err, requestId, method: req.method, path: url.pathname }, "request failed");
    // The rest of an oversized body stays unread, so this connection cannot carry another request.
    const close: Record<string, string> = mapped.status === 413 ? { connection: "close" } : {};
    return json(mapped.body, mapped.status, { ...mapped.headers, ...close, [REQUEST_ID_HEADER]: requestId });
  }
}
