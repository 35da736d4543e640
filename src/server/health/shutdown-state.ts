import { remember } from "../runtime/remember";

/**
 * Whether this instance has been asked to stop (SIGTERM or SIGINT): from that
 * moment /api/ready answers 503, so a load balancer sends nothing new here
 * while the requests and delivery attempts in flight finish (main.ts). Once per process: the custom server
 * marks it, and the Next.js graph's readiness (the dashboard's system.ready) reads the same mark.
 */
const state = remember("health.shutdown", () => ({ stoppingSince: null as Date | null }));

export function markShuttingDown(now: Date = new Date()): void {
  state.stoppingSince ??= now;
}

export function shuttingDown(): boolean {
  return state.stoppingSince !== null;
}
