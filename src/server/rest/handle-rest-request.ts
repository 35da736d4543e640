import { AppError } from "../errors/app-error";
import { jsonResponse as json, readBody } from "../http/body";
import { errorResponse } from "../http/error-response";
import { REQUEST_ID_HEADER, requestContextOf } from "../http/request-context";
import { createCaller } from "../trpc/root";
import { IDEMPOTENT_REPLAYED_HEADER, type Context, type ResponseMeta } from "../trpc/init";
import { matchRoute } from "./match-route";
import { restRoutes } from "./routes";

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

/** What the procedure told the transport: a replayed answer, and the state of the rate-limit bucket it spent from. */
function metaHeaders(meta: ResponseMeta): Record<string, string> {
  return { ...(meta.idempotentReplayed && { [IDEMPOTENT_REPLAYED_HEADER]: "true" }), ...meta.rateLimit };
}

/** Adapts an HTTP request to a procedure call and its result (or error) to HTTP. Nothing more. */
export async function handleRestRequest(req: Request): Promise<Response> {
  const { requestId, ip } = requestContextOf(req.headers);
  const url = new URL(req.url);
  const responseMeta: ResponseMeta = { idempotentReplayed: false };
  try {
    const match = matchRoute(restRoutes, req.method, url.pathname);
    if (match.kind === "not-found") throw new AppError("NOT_FOUND", `No such endpoint: ${req.method} ${url.pathname}`);
    if (match.kind === "method-not-allowed") {
      const res = errorResponse(
        new AppError(
          "METHOD_NOT_ALLOWED",
          `${req.method} is not allowed on ${url.pathname}; use ${match.allow.join(", ")}.`,
        ),
        req,
        requestId,
      );
      res.headers.set("allow", match.allow.join(", "));
      return res;
    }
    const { route, params } = match;
    const query = route.method === "GET" ? Object.fromEntries(url.searchParams) : {};
    const body = route.method === "GET" ? {} : parseJsonObject(await readBody(req));
    const ctx: Context = {
      requestId,
      ip,
      authorization: req.headers.get("authorization"),
      idempotencyKey: route.method === "POST" ? req.headers.get("idempotency-key") : null,
      responseMeta,
    };
    const result = await resolveProcedure(createCaller(ctx), route.procedure)({ ...query, ...body, ...params });
    return json(result, route.status, { [REQUEST_ID_HEADER]: requestId, ...metaHeaders(responseMeta) });
  } catch (err) {
    const res = errorResponse(err, req, requestId);
    for (const [name, value] of Object.entries(metaHeaders(responseMeta))) res.headers.set(name, value);
    return res;
  }
}
