import { IncomingMessage, type ServerResponse } from "node:http";
import { AppError } from "../errors/app-error";
import { MAX_BODY_BYTES } from "./body";
import { writeErrorResponse } from "./error-response";

/**
 * The one input boundary (docs/decisions.md §3): every request passes these checks in
 * the custom server before Next.js or the engine sees it, so no transport
 * (REST, tRPC, next-auth, billing pages, engine, Stripe webhook) can hand the
 * database a NUL, read an unbounded body, or turn a bad escape into a 500.
 */

/** Methods some route of ours serves; anything else (TRACE, CONNECT, WebDAV…) is refused on every path. */
const SERVED_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/**
 * Routes Next.js serves itself answer a method they lack with a bare 405, outside
 * the envelope; these are their methods. `/api/*` paths not listed belong to the
 * REST handler, which answers its own 405s per route. `null`: every served method.
 */
function allowedMethodsFor(path: string): readonly string[] | null {
  if (path === "/api/trpc" || path.startsWith("/api/trpc/")) return ["GET", "HEAD", "POST"];
  if (path === "/api/session" || path.startsWith("/api/session/")) return ["GET", "HEAD", "POST"];
  if (path === "/api/webhooks/stripe") return ["POST"];
  if (path.startsWith("/api/engine/")) return ["POST"];
  if (path === "/api/openapi.json") return ["GET", "HEAD"];
  if (path.startsWith("/api/") || path === "/api") return null;
  // Local billing pages (docs/decisions.md §4): GET and HEAD show, a POST (any body) acts.
  if (/^\/billing\/(checkout\/[^/]+|portal\/[^/]+\/(cancel|resume))\/?$/.test(path)) return ["GET", "HEAD", "POST"];
  // The account forms that work without JavaScript post here (HTML forms only).
  if (ACCOUNT_FORM_POSTS.test(path)) return ["POST"];
  // Pages, /docs and Next.js's own assets: read-only (the app has no server actions).
  return ["GET", "HEAD"];
}

/** The bare media type of a Content-Type header, lower case, without parameters. */
function mediaTypeOf(contentType: string | string[] | undefined): string {
  const value = Array.isArray(contentType) ? contentType[0] : contentType;
  return (value ?? "").split(";")[0]!.trim().toLowerCase();
}

const FORM = "application/x-www-form-urlencoded";
// The invitation's form posts under its link, whose token (base64url) is a path segment.
const ACCOUNT_FORM_POSTS =
  /^\/(login\/submit|signup\/submit|forgot-password\/send|reset-password\/submit|verify-email\/confirm|invitations\/[A-Za-z0-9_-]{1,200}\/submit|dashboard\/switch-account)\/?$/;
const MULTIPART = "multipart/form-data";

/** What a POST to these paths must declare; everything else parses (or refuses) its own body. */
function requiredMediaTypes(path: string): readonly string[] | null {
  // tRPC's adapter answers an unknown type with a 500; JSON only also rules out cross-site form posts.
  if (path.startsWith("/api/trpc/")) return ["application/json"];
  // next-auth takes HTML form posts. The billing pages' POSTs read no body at all.
  if (path.startsWith("/api/session/") || ACCOUNT_FORM_POSTS.test(path)) return [FORM];
  return null;
}

export type Refusal = { error: AppError; headers: Record<string, string> };

function refuse(error: AppError, headers: Record<string, string> = {}): Refusal {
  return { error, headers };
}

const invalid = (message: string) => new AppError("VALIDATION_FAILED", message);

/** A JSON `\u0000` escape not itself escaped (`\\u0000` is a backslash and text). */
const JSON_NUL_ESCAPE = /(?<!\\)(?:\\\\)*\\u0000/i;

/** Percent-decodes one component; null when an escape is malformed or not UTF-8. */
function decodeComponent(raw: string, plusIsSpace: boolean): string | null {
  try {
    return decodeURIComponent(plusIsSpace ? raw.replace(/\+/g, " ") : raw);
  } catch {
    return null;
  }
}

/** Path and query: well-formed escapes, no NUL raw or encoded (PostgreSQL refuses NUL in text). */
export function checkUrl(url: string): Refusal | null {
  const q = url.indexOf("?");
  const rawPath = q === -1 ? url : url.slice(0, q);
  const rawQuery = q === -1 ? "" : url.slice(q + 1);
  const path = decodeComponent(rawPath, false);
  if (path === null) return refuse(invalid("The path has a malformed percent-escape."));
  if (path.includes("\0")) return refuse(invalid("The path contains a NUL character."));
  for (const part of rawQuery.split(/[&=]/)) {
    const value = decodeComponent(part, true);
    if (value === null) return refuse(invalid("The query has a malformed percent-escape."));
    // A query value may carry JSON (tRPC's `input`), where `\u0000` becomes a NUL.
    if (value.includes("\0") || JSON_NUL_ESCAPE.test(value))
      return refuse(invalid("The query contains a NUL character."));
  }
  return null;
}

/**
 * The decoded path (checkUrl passed), for routing decisions. An encoded slash
 * stays encoded: Next.js routes `a%2Fb` as one segment, and so must we.
 */
function pathOf(url: string): string {
  const rawPath = url.split("?")[0] ?? "/";
  return rawPath
    .split("/")
    .map((segment) => (decodeComponent(segment, false) ?? segment).replace(/\//g, "%2F"))
    .join("/");
}

/** `http://host/path`: the absolute form, which HTTP/1.1 servers must accept (Node's parser keeps it as the URL). */
const ABSOLUTE_FORM = /^https?:\/\/[^/?#]+(?:[/?]|$)/i;

/**
 * `http://host/a?b` → `/a?b`, any other target unchanged. Routing reads the
 * path only; left absolute, Next.js redirects the request to its own authority.
 */
export function originFormOf(url: string): string {
  if (!ABSOLUTE_FORM.test(url)) return url;
  const rest = url.replace(/^https?:\/\/[^/?#]+/i, "");
  return rest.startsWith("/") ? rest : `/${rest}`;
}

/** Checks on the request line and headers, before any byte of the body is read. */
export function checkHead(req: Pick<IncomingMessage, "method" | "url" | "headers">): Refusal | null {
  const method = (req.method ?? "").toUpperCase();
  const url = req.url ?? "/";
  if (!(SERVED_METHODS as readonly string[]).includes(method)) {
    const allow = allowedMethodsFor(pathOf(url)) ?? SERVED_METHODS;
    return refuse(
      new AppError("METHOD_NOT_ALLOWED", `${method || "This method"} is not allowed; use ${allow.join(", ")}.`),
      { allow: allow.join(", ") },
    );
  }
  // `*` (OPTIONS's server-wide form) or any other target that is not a path would reach Next.js, which fails on it with a 500.
  if (!url.startsWith("/") && !ABSOLUTE_FORM.test(url))
    return refuse(invalid("The request target must be a path starting with /."));
  const badUrl = checkUrl(url);
  if (badUrl) return badUrl;
  const path = pathOf(url);
  const allow = allowedMethodsFor(path);
  if (allow && !allow.includes(method)) {
    return refuse(new AppError("METHOD_NOT_ALLOWED", `${method} is not allowed on ${path}; use ${allow.join(", ")}.`), {
      allow: allow.join(", "),
    });
  }
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > MAX_BODY_BYTES)
    return refuse(new AppError("PAYLOAD_TOO_LARGE"), { connection: "close" });
  const required = method === "POST" ? requiredMediaTypes(path) : null;
  if (required && !required.includes(mediaTypeOf(req.headers["content-type"]))) {
    return refuse(invalid(`Send the request body as ${required.join(" or ")}.`));
  }
  return null;
}

/** Whether the request carries a body at all (HTTP/1.1: a length or a transfer coding). */
export function hasBody(req: Pick<IncomingMessage, "headers">): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && Number(length) > 0);
}

/**
 * NUL in a body, in whatever form its parser would turn into one: raw anywhere,
 * `%00` unless the body is JSON (the engine parses any body as a form),
 * `\u0000` unless the route parses forms (next-auth, the engine): REST parses
 * any body as JSON whatever its declared type, so a form- or multipart-typed
 * JSON body must not carry one past here.
 */
export function checkBody(body: Buffer, contentType: string | string[] | undefined, path: string): Refusal | null {
  if (body.includes(0)) return refuse(invalid("The body contains a NUL character."));
  const media = mediaTypeOf(contentType);
  // Escapes are ASCII: latin1 keeps every byte one character and never throws.
  const text = body.toString("latin1");
  const formNul = (media !== "application/json" || path.startsWith("/api/engine/")) && /%00/.test(text);
  const parsesForms = path.startsWith("/api/session/") || path.startsWith("/api/engine/");
  const jsonNul = !(parsesForms && (media === FORM || media === MULTIPART)) && JSON_NUL_ESCAPE.test(text);
  if (formNul || jsonNul) return refuse(invalid("The body contains a NUL character."));
  return null;
}

/** Reads the whole body, refusing more than 64 KiB whether declared or streamed. */
export function bufferBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        reject(new AppError("PAYLOAD_TOO_LARGE"));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const cleanup = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
  });
}

/** How much of a refused body is read and dropped so the client, still sending, gets to read its 413. */
const DRAIN_LIMIT = { bytes: 1024 * 1024, ms: 5_000 };

/**
 * Reads and drops the rest of a refused body, up to a bound. A client that is
 * still uploading (fetch, curl) fails with EPIPE instead of reading the answer
 * when the connection closes under it; past the bound it is cut anyway.
 */
function drainBody(req: IncomingMessage, limit = DRAIN_LIMIT): Promise<void> {
  return new Promise((resolve) => {
    let size = 0;
    const done = () => {
      clearTimeout(timer);
      req.off("data", onData);
      req.off("end", done);
      req.off("error", done);
      req.off("close", done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit.bytes) done();
    };
    const timer = setTimeout(done, limit.ms);
    if (req.readableEnded) return done();
    req.on("data", onData);
    req.on("end", done);
    req.on("error", done);
    req.on("close", done);
    req.resume();
  });
}

const bodies = new WeakMap<IncomingMessage, Buffer>();

/**
 * The body the boundary read and checked, for a route served straight from
 * node:http (the engine): taken as it is rather than streamed a second time.
 */
export function checkedBodyOf(req: IncomingMessage): Buffer | undefined {
  return bodies.get(req);
}

/**
 * The request again, body included, for Next.js and the engine to read as if
 * untouched: a fresh message on the same socket with the same request line and
 * headers, its stream holding the bytes the boundary read.
 */
export function withBody(req: IncomingMessage, body: Buffer): IncomingMessage {
  const again = new IncomingMessage(req.socket);
  bodies.set(again, body);
  again.method = req.method;
  again.url = req.url;
  again.headers = req.headers;
  again.rawHeaders = req.rawHeaders;
  again.trailers = req.trailers;
  again.rawTrailers = req.rawTrailers;
  again.httpVersion = req.httpVersion;
  again.httpVersionMajor = req.httpVersionMajor;
  again.httpVersionMinor = req.httpVersionMinor;
  if (body.length) again.push(body);
  again.push(null);
  again.complete = true;
  return again;
}

/**
 * The boundary as the server runs it, before Next.js or the engine: refuses
 * what no route may see, in the envelope; reads a body (at most 64 KiB),
 * checks it and hands it on intact. Returns the request to serve, or null when
 * the request was answered here.
 */
export async function passInputBoundary(
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  opts: {
    /**
     * The route takes the checked body as bytes (`checkedBodyOf`), never as a stream (the engine): the
     * request itself is handed on, without a second message built around the body for nothing to read
     * (a stream's state and two pushes, on every voice request).
     */
    bodyAsBytes?: boolean;
  } = {},
): Promise<IncomingMessage | null> {
  if (req.url) req.url = originFormOf(req.url);
  const refusal = checkHead(req);
  if (refusal) {
    if (refusal.error.code === "PAYLOAD_TOO_LARGE" && Number(req.headers["content-length"]) <= DRAIN_LIMIT.bytes)
      await drainBody(req);
    for (const [name, value] of Object.entries(refusal.headers)) res.setHeader(name, value);
    writeErrorResponse(refusal.error, req, res, requestId);
    return null;
  }
  if (!hasBody(req)) return req;
  let body: Buffer;
  try {
    body = await bufferBody(req);
  } catch (err) {
    // A client that hung up mid-body gets no answer; an oversized body gets its 413 (with connection: close).
    if (err instanceof AppError) {
      await drainBody(req);
      writeErrorResponse(err, req, res, requestId);
    } else res.destroy();
    return null;
  }
  const badBody = checkBody(body, req.headers["content-type"], pathOf(req.url ?? "/"));
  if (badBody) {
    writeErrorResponse(badBody.error, req, res, requestId);
    return null;
  }
  if (opts.bodyAsBytes) {
    bodies.set(req, body);
    return req;
  }
  return withBody(req, body);
}
