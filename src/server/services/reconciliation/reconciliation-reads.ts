/** Reconciliation's reads (docs/decisions.md §10): off the hot path, on the shapes the close path takes. */
import { kysely } from "../../db/kysely";
import { TERMINAL_RANK } from "../calls/call-status";
import {
  callFromRow,
  prefixedCallColumns,
  type EngineCall,
  type EngineConnection,
  type EngineNumber,
  type PrefixedRow,
} from "../calls/call-row";

export type StaleCall = { call: EngineCall; connection: EngineConnection };

/**
 * Calls of connected accounts still open with no request from Twilio since
 * `before`, oldest silence first (the index on statusRank, lastRequestAt).
 */
export async function staleOpenCalls(before: Date, limit: number): Promise<StaleCall[]> {
  const rows = await kysely()
    .selectFrom("Call as c")
    .innerJoin("TwilioConnection as tc", "tc.accountId", "c.accountId")
    .select([...prefixedCallColumns, "tc.accountSid", "tc.authTokenEnc"])
    .where("c.statusRank", "<", TERMINAL_RANK)
    .where("c.lastRequestAt", "<", before)
    .where("c.callSid", "not like", "pending:%")
    // A simulated call (docs/decisions.md §21) never reached Twilio: there is nothing there to read.
    .where("c.test", "=", false)
    .orderBy("c.lastRequestAt")
    .limit(limit)
    .execute();
  // Read from Call itself, every row has a call.
  return rows.flatMap((r) => {
    const call = callFromRow(r as unknown as PrefixedRow);
    return call ? [{ call, connection: { accountSid: r.accountSid, authTokenEnc: r.authTokenEnc } }] : [];
  });
}

/** Twilio knows nothing final about the call yet: ask again after another quiet spell, and let the others have their turn. */
export async function postponeReconciliation(callId: string, at: Date): Promise<void> {
  await kysely()
    .updateTable("Call")
    .set({ lastRequestAt: at })
    .where("id", "=", callId)
    .where("statusRank", "<", TERMINAL_RANK)
    .execute();
}

export type ReconcileTarget = EngineConnection & {
  accountId: string;
  connectedAt: Date;
  reconciledThrough: Date | null;
  numbers: (EngineNumber & { phoneNumber: string; createdAt: Date })[];
};

/** Every Twilio connection with the verified numbers its call list is read for. */
export async function reconcileTargets(): Promise<ReconcileTarget[]> {
  const rows = await kysely()
    .selectFrom("TwilioConnection as tc")
    .innerJoin("PhoneNumber as n", (j) =>
      j.onRef("n.accountId", "=", "tc.accountId").on("n.verified", "=", true).on("n.isActive", "=", true),
    )
    .select([
      "tc.accountId",
      "tc.accountSid",
      "tc.authTokenEnc",
      "tc.connectedAt",
      "tc.reconciledThrough",
      "n.id",
      "n.phoneNumber",
      "n.onCallStartUrl",
      "n.onCallEndUrl",
      "n.onErrorUrl",
      "n.createdAt",
    ])
    .orderBy("tc.accountId")
    .execute();
  const targets = new Map<string, ReconcileTarget>();
  for (const r of rows) {
    let t = targets.get(r.accountId);
    if (!t) {
      t = {
        accountId: r.accountId,
        accountSid: r.accountSid,
        authTokenEnc: r.authTokenEnc,
        connectedAt: r.connectedAt,
        reconciledThrough: r.reconciledThrough,
        numbers: [],
      };
      targets.set(r.accountId, t);
    }
    t.numbers.push({
      id: r.id,
      phoneNumber: r.phoneNumber,
      onCallStartUrl: r.onCallStartUrl,
      onCallEndUrl: r.onCallEndUrl,
      onErrorUrl: r.onErrorUrl,
      createdAt: r.createdAt,
    });
  }
  return [...targets.values()];
}

/** Moves the connection's watermark forward only: two runs at once never move it back. */
export async function advanceReconciledThrough(accountId: string, through: Date): Promise<void> {
  await kysely()
    .updateTable("TwilioConnection")
    .set((eb) => ({
      reconciledThrough: eb.fn<Date>("greatest", [
        eb.fn.coalesce("reconciledThrough", eb.val(through)),
        eb.val(through),
      ]),
    }))
    .where("accountId", "=", accountId)
    .execute();
}
