import { STATUS_CODES } from "node:http";
import { randomUUID } from "node:crypto";
import type { Duplex } from "node:stream";
import { DEFAULT_MESSAGE } from "../errors/error-codes";
import { API_CONTENT_SECURITY_POLICY } from "./security-headers";

/**
 * Slow clients, for a deployment with no proxy in front: the headers must
 * arrive within 10 s and the whole request within 30 s, or the connection is
 * cut (Node answers 408). Keep-alive idling is governed separately.
 */
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 30_000;
/** How often Node looks for connections past those bounds (its default, 30 s, would double them). */
export const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

type ClientError = Error & { code?: string };

/**
 * Header lines for an answer written straight to the socket: the security
 * headers every answer carries (`securityHeaders(publicBaseUrl)`, set on
 * ordinary answers by main.ts) with the API's policy, and a request id.
 */
function rawHeaderLines(headers: Record<string, string>): string {
  const all: Record<string, string> = {
    ...headers,
    "content-security-policy": API_CONTENT_SECURITY_POLICY,
    "x-request-id": randomUUID(),
  };
  return Object.entries(all)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
}

/** A complete answer with a JSON envelope body; the connection closes after it. */
function rawJsonAnswer(statusLine: string, extraHeaders: Record<string, string>, body: object): string {
  const text = JSON.stringify(body);
  return (
    `HTTP/1.1 ${statusLine}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nCache-Control: no-store\r\n` +
    rawHeaderLines(extraHeaders) +
    `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`
  );
}

/**
 * What Node's HTTP parser refuses (a malformed request line or header, a NUL in
 * a header, more than 16 KiB of headers) never reaches a handler; answer it in
 * the envelope too, with the security headers. A timeout keeps Node's bodiless
 * 408: the error table has no code for it. Bind `headers` to the server's
 * `securityHeaders(publicBaseUrl)`.
 */
export function answerClientError(err: ClientError, socket: Duplex, headers: Record<string, string> = {}): void {
  if (!socket.writable || (socket as Duplex & { _httpMessage?: unknown })._httpMessage) {
    socket.destroy();
    return;
  }
  if (err.code === "ERR_HTTP_REQUEST_TIMEOUT") {
    socket.end(
      `HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n${rawHeaderLines(headers)}Content-Length: 0\r\n\r\n`,
    );
    return;
  }
  if (err.code === "ECONNRESET") {
    socket.destroy();
    return;
  }
  // Over 16 KiB of request line and headers (Node's limit) is a malformed request like any other: 400, in the envelope.
  const why =
    err.code === "HPE_HEADER_OVERFLOW"
      ? "The request line and headers are larger than 16 KiB."
      : "The HTTP request is malformed.";
  socket.end(
    rawJsonAnswer("400 Bad Request", headers, {
      error: { code: "VALIDATION_FAILED", message: `${DEFAULT_MESSAGE.VALIDATION_FAILED} ${why}` },
    }),
  );
}

/** CONNECT never reaches a request handler (Node hands it to 'connect'); we tunnel nothing. */
export function refuseConnect(_req: unknown, socket: Duplex, headers: Record<string, string> = {}): void {
  socket.end(
    rawJsonAnswer(
      "405 Method Not Allowed",
      { ...headers, allow: "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS" },
      { error: { code: "METHOD_NOT_ALLOWED", message: "CONNECT is not allowed; this is not a proxy." } },
    ),
  );
}

/**
 * An upgrade refused before it happens (docs/api.md, `GET /api/listen`): an ordinary HTTP answer with the
 * error envelope, written to the socket (an upgrade request never reaches the request handler).
 */
export function refuseUpgrade(
  socket: Duplex,
  refusal: { status: number; body: object; headers: Record<string, string> },
  headers: Record<string, string> = {},
): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(
    rawJsonAnswer(
      `${refusal.status} ${STATUS_CODES[refusal.status] ?? ""}`,
      { ...headers, ...refusal.headers },
      refusal.body,
    ),
  );
}
