import { ZDeliveryStatus } from "@/server/schemas/enums";
/** Shared by the server page's prefetch and the client log: the same input, the same cache entry. */
export const PAGE_SIZE = 20;

/** A PENDING delivery whose next attempt is due within this window is worth watching. */
const SOON_MS = 60_000;
export const POLL_MS = 1_500;

export function dueSoon(d: { status: string; nextAttemptAt: string | null }): boolean {
  if (d.status !== "PENDING") return false;
  return d.nextAttemptAt === null || new Date(d.nextAttemptAt).getTime() - Date.now() < SOON_MS;
}

/** "HTTP 200", or the network error, as one line. */
export function attemptOutcome(a: { statusCode: number | null; error: string | null }): string {
  if (a.statusCode !== null) return `HTTP ${a.statusCode}`;
  return a.error ?? "no response";
}

export const DELIVERY_STATUSES = ZDeliveryStatus.options;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export function isDeliveryStatus(value: string | null): value is DeliveryStatus {
  return (DELIVERY_STATUSES as readonly string[]).includes(value ?? "");
}

/** The log's view as the URL says it: `?status=FAILED&page=2&delivery=<id>`; anything unknown is ignored. */
export function deliveryViewOf(params: { get(name: string): string | null }) {
  const status = params.get("status");
  const page = Number.parseInt(params.get("page") ?? "1", 10);
  return {
    status: isDeliveryStatus(status) ? status : null,
    offset: Number.isSafeInteger(page) && page > 1 ? (page - 1) * PAGE_SIZE : 0,
    selected: params.get("delivery"),
  };
}

export function deliveryListInput(view: { status: DeliveryStatus | null; offset: number }) {
  return view.status
    ? { limit: PAGE_SIZE, offset: view.offset, status: view.status }
    : { limit: PAGE_SIZE, offset: view.offset };
}
