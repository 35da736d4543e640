import ipaddr from "ipaddr.js";
import { env } from "../env";

// What `Host` may say: a name that only ever means this machine, so a rebinding DNS name never passes.
const LOCAL_HOST = /^(?:localhost|127\.0\.0\.1|\[::1\])(?::\d{1,5})?$/i;

/** A socket peer on the loopback network (127.0.0.0/8, ::1, or either IPv4-mapped). */
export function isLoopbackSocketAddress(address: string | null | undefined): boolean {
  if (!address) return false;
  const bare = address.replace(/%.*$/, "");
  if (!ipaddr.isValid(bare)) return false;
  return ipaddr.process(bare).range() === "loopback";
}

/** `localhost`, `127.0.0.1` or `[::1]`, with any port. */
export function isLocalHostHeader(host: string | null | undefined): boolean {
  return typeof host === "string" && LOCAL_HOST.test(host);
}

const isLoopbackHostname = (host: string) =>
  host === "localhost" || host === "[::1]" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);

/**
 * Who may read the outbox: it holds one-time links (password resets) for
 * every account, so it is a development tool only (docs/decisions.md §20). It exists
 * only without SMTP_URL and when the service's public address is this
 * machine; then it answers only a connection whose socket is loopback (never
 * X-Forwarded-For, which anyone can write) and whose `Host` is a local name
 * (a page on a rebinding DNS name, loaded in the developer's browser, is not).
 */
export function outboxVisibleTo(request: { socketIp: string | null; host: string | null }): boolean {
  const e = env();
  if (e.smtpUrl) return false;
  if (!isLoopbackHostname(new URL(e.publicBaseUrl).hostname)) return false;
  return isLoopbackSocketAddress(request.socketIp) && isLocalHostHeader(request.host);
}
