import { normalizeUsNumber } from "@/shared/us-number";
import { db } from "../../db/client";

/** What the search box found: one call, one event's delivery, one of the account's numbers, or nothing. */
export type LookupMatch =
  | { kind: "call"; callSid: string }
  | { kind: "delivery"; id: string; eventId: string }
  | { kind: "number"; phoneNumberId: string; phoneNumber: string };

/**
 * Finds what `q` names in the account's data: a call SID, an event id (evt_…, sent as webhook-id; its first
 * delivery), a delivery's own id, or a phone number (typed any common way): one of the account's numbers, or
 * else the latest call from or to it. Another account's data is never matched.
 */
export async function lookup(opts: { accountId: string; q: string }): Promise<{ match: LookupMatch | null }> {
  const q = opts.q.trim();
  const { accountId } = opts;

  const call = await db().call.findFirst({ where: { accountId, callSid: q }, select: { callSid: true } });
  if (call) return { match: { kind: "call", callSid: call.callSid } };

  const delivery = await db().webhookDelivery.findFirst({
    where: { accountId, OR: [{ eventId: q }, { id: q }] },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: { id: true, eventId: true },
  });
  if (delivery) return { match: { kind: "delivery", id: delivery.id, eventId: delivery.eventId } };

  const phone = normalizeUsNumber(q);
  if (/^\+[1-9]\d{7,14}$/.test(phone)) {
    const number = await db().phoneNumber.findFirst({
      where: { accountId, phoneNumber: phone },
      select: { id: true, phoneNumber: true },
    });
    if (number) return { match: { kind: "number", phoneNumberId: number.id, phoneNumber: number.phoneNumber } };
    const latest = await db().call.findFirst({
      where: { accountId, OR: [{ fromNumber: phone }, { toNumber: phone }] },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      select: { callSid: true },
    });
    if (latest) return { match: { kind: "call", callSid: latest.callSid } };
  }
  return { match: null };
}
