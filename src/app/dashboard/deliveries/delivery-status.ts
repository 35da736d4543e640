import { ZDeliveryStatus } from "@/shared/schemas/enums";
import { ZEventType } from "@/shared/schemas/events";
import { ZDeliveryDestination, type DeliveryDestination } from "@/shared/schemas/webhook-deliveries";
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

/** An id as the API takes one; anything else in `?endpoint=` is ignored rather than sent. */
const ID = /^[A-Za-z0-9_-]{1,64}$/;

export const EVENT_TYPE_NAMES = ZEventType.options;
export type EventTypeName = (typeof EVENT_TYPE_NAMES)[number];
const DESTINATIONS = ZDeliveryDestination.options;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The log's view as the URL says it: `?status=FAILED&type=call.ended&number=<id>&to=endpoint&since=2026-11-01&
 * until=2026-11-27&page=2&delivery=<id>&endpoint=<id>` (one webhook endpoint's deliveries); anything unknown is
 * ignored.
 */
export function deliveryViewOf(params: { get(name: string): string | null }) {
  const status = params.get("status");
  const page = Number.parseInt(params.get("page") ?? "1", 10);
  const endpoint = params.get("endpoint");
  const type = params.get("type");
  const number = params.get("number");
  const to = params.get("to");
  const since = params.get("since");
  const until = params.get("until");
  return {
    status: isDeliveryStatus(status) ? status : null,
    offset: Number.isSafeInteger(page) && page > 1 ? (page - 1) * PAGE_SIZE : 0,
    selected: params.get("delivery"),
    endpointId: endpoint && ID.test(endpoint) ? endpoint : null,
    eventType: (EVENT_TYPE_NAMES as readonly string[]).includes(type ?? "") ? (type as EventTypeName) : null,
    phoneNumberId: number && ID.test(number) ? number : null,
    destination: (DESTINATIONS as readonly string[]).includes(to ?? "") ? (to as DeliveryDestination) : null,
    since: since && DAY.test(since) ? since : null,
    until: until && DAY.test(until) ? until : null,
  };
}

/** A day's start in the viewer's time zone, as the API takes a time; `plusDays` moves it on. */
function startOfDay(day: string, plusDays = 0): string {
  const d = new Date(`${day}T00:00:00`);
  d.setDate(d.getDate() + plusDays);
  return d.toISOString();
}

export function deliveryListInput(view: {
  status: DeliveryStatus | null;
  offset: number;
  endpointId?: string | null;
  eventType?: EventTypeName | null;
  phoneNumberId?: string | null;
  destination?: DeliveryDestination | null;
  since?: string | null;
  until?: string | null;
}) {
  return {
    limit: PAGE_SIZE,
    offset: view.offset,
    ...(view.status && { status: view.status }),
    ...(view.endpointId && { endpointId: view.endpointId }),
    ...(view.eventType && { eventType: view.eventType }),
    ...(view.phoneNumberId && { phoneNumberId: view.phoneNumberId }),
    ...(view.destination && { destination: view.destination }),
    // Dates are the viewer's days: from the start of `since` to the end of `until`, in their time zone.
    ...(view.since && { since: startOfDay(view.since) }),
    ...(view.until && { until: startOfDay(view.until, 1) }),
  };
}

/** Where a delivery goes, in words: one of the account's webhook endpoints, or the number's (or call's) URL. */
export function destinationOf(d: { endpointId: string | null }): string {
  return d.endpointId ? "Webhook endpoint" : "Number URL";
}
