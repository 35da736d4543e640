/**
 * Whether this instance has been asked to stop (SIGTERM or SIGINT): from that
 * moment /api/ready answers 503, so a load balancer sends nothing new here
 * while the requests and delivery attempts in flight finish (main.ts).
 */
let stoppingSince: Date | null = null;

export function markShuttingDown(now: Date = new Date()): void {
  stoppingSince ??= now;
}

export function shuttingDown(): boolean {
  return stoppingSince !== null;
}
