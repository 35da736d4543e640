import { randomUUID } from "node:crypto";
import type { Duplex } from "node:stream";
import { DEFAULT_MESSAGE } from "../errors/error-codes";

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
 * What Node's HTTP parser refuses (a malformed request line or header, a NUL in
 * a header, more than 16 KiB of headers) never reaches a handler; answer it in
 * the envelope too. A timeout keeps Node's bodiless 408: the error table has no code for it.
 */
export function answerClientError(err: ClientError, socket: Duplex): void {
  if (!socket.writable || (socket as Duplex & { _httpMessage?: unknown })._httpMessage) {
    socket.destroy();
    return;
  }
  if (err.code === "ERR_HTTP_REQUEST_TIMEOUT") {
    socket.end(`HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nX-Request-Id: ${randomUUID()}\r\nContent-Length: 0\r\n\r\n`);
    return;
  }
  if (err.code === "ECONNRESET") {
    socket.destroy();
    return;
  }
  // Over 16 KiB of request line and headers (Node's limit) is a malformed request like any other: 400, in the envelope.
  const why = err.code === "HPE_HEADER_OVERFLOW" ? "The request line and headers are larger than 16 KiB." : "The HTTP request is malformed.";
  const body = JSON.stringify({ error: { code: "VALIDATION_FAILED", message: `${DEFAULT_MESSAGE.VALIDATION_FAILED} ${why}` } });
  socket.end(
    "HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nCache-Control: no-store\r\n" +
      `X-Request-Id: ${randomUUID()}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** CONNECT never reaches a request handler (Node hands it to 'connect'); we tunnel nothing. */
export function refuseConnect(_req: unknown, socket: Duplex): void {
  const body = JSON.stringify({ error: { code: "METHOD_NOT_ALLOWED", message: "CONNECT is not allowed; this is not a proxy." } });
  socket.end(
    "HTTP/1.1 405 Method Not Allowed\r\nConnection: close\r\nAllow: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS\r\n" +
      `Content-Type: application/json; charset=utf-8\r\nX-Request-Id: ${randomUUID()}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
