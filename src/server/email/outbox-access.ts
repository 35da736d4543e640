import { isIP } from "node:net";
import { env } from "../env";

const isLoopbackHost = (host: string) => host === "localhost" || host === "[::1]" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
const isLoopbackIp = (ip: string) => (isIP(ip) ? /^127\.|^::1$|^::ffff:127\./.test(ip) : false);

/**
 * Who may read the outbox: it holds one-time links (password resets) for
 * every account, so it is a development tool only. It exists only without
 * SMTP_URL, only when the service's public address is this machine (a
 * deployment behind a proxy has a public one), and only for a client on
 * loopback, i.e. the developer at the box.
 */
export function outboxVisibleTo(clientIp: string | null): boolean {
  const e = env();
  if (e.smtpUrl) return false;
  return isLoopbackHost(new URL(e.publicBaseUrl).hostname) && clientIp !== null && isLoopbackIp(clientIp);
}
