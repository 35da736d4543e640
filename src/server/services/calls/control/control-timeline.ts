import type { CallCommand, CallRecording } from "@/generated/prisma/client";
import type { TTimelineEntry } from "../../../../shared/schemas/calls";
import { CALL_COMMANDS } from "../../../../shared/schemas/enums";

type Ordered = TTimelineEntry & { order: number };
type Shown<T extends TTimelineEntry["type"]> = Extract<TTimelineEntry, { type: T }>;

const COMMANDS = new Set<string>(CALL_COMMANDS);
const TRANSFERRED = new Set(["completed", "answered"]);

/** A recording as GET /api/calls/{callSid} lists it. */
export function recordingDto(r: CallRecording) {
  return {
    sid: r.recordingSid,
    status: r.status,
    channels: (r.channels === 1 ? 1 : 2) as 1 | 2,
    url: r.url,
    durationSeconds: r.durationSeconds,
    startedAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

/** The call's live commands (who, what, Twilio's answer, latency), transfer results and recordings (docs/decisions.md §13). */
export function controlTimeline(commands: CallCommand[], recordings: CallRecording[]): Ordered[] {
  const out: Ordered[] = [];
  for (const c of commands) {
    if (!COMMANDS.has(c.command)) continue;
    const details = (c.details ?? null) as Record<string, unknown> | null;
    out.push({
      type: "command",
      at: c.at.toISOString(),
      command: c.command as Shown<"command">["command"],
      actor: c.actor,
      outcome: c.outcome as Shown<"command">["outcome"],
      providerStatus: c.providerStatus,
      providerError:
        c.outcome === "ok" || c.providerMessage === null ? null : { code: c.providerCode, message: c.providerMessage },
      latencyMs: c.providerMs,
      ownMs: c.ownMs,
      details: details && Object.fromEntries(Object.entries(details).filter(([k]) => k !== "onFailureTwiml")),
      order: 2.5,
    });
    const result = (c.result ?? null) as {
      dialCallStatus?: string;
      dialCallSid?: string | null;
      dialCallDurationSeconds?: number | null;
    } | null;
    if (c.command === "transfer" && result?.dialCallStatus && c.resultAt) {
      out.push({
        type: "transfer",
        at: c.resultAt.toISOString(),
        to: typeof details?.to === "string" ? details.to : "",
        dialCallStatus: result.dialCallStatus,
        dialCallSid: result.dialCallSid ?? null,
        dialCallDurationSeconds: result.dialCallDurationSeconds ?? null,
        transferred: TRANSFERRED.has(result.dialCallStatus),
        order: 2.6,
      });
    }
  }
  for (const r of recordings) {
    out.push({
      type: "recording",
      at: r.updatedAt.toISOString(),
      recordingSid: r.recordingSid,
      status: recordingDto(r).status,
      order: 2.7,
    });
  }
  return out;
}
