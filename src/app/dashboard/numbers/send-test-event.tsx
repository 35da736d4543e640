"use client";

import { TestEventPanel } from "@/components/dashboard/test-event-panel";
import { EVENT_TYPES, EVENT_URL_FIELD } from "@/shared/schemas/events";

type NumberUrls = { id: string; onCallStartUrl: string; onCallEndUrl: string; onErrorUrl: string | null };

/**
 * Sends a signed sample event (`data.test = true`) to one of the number's URLs and shows what it answered,
 * so signature checks can be tried before a real call (the one test-event panel, shared with endpoints).
 */
export function SendTestEvent({ number, onClose }: { number: NumberUrls; onClose: () => void }) {
  const choices = EVENT_TYPES.map((type) => {
    const url = number[EVENT_URL_FIELD[type]];
    return { type, label: url ? type : `${type} (no URL)`, disabled: !url };
  });
  return (
    <TestEventPanel
      target={{ phoneNumberId: number.id }}
      choices={choices}
      initialType="call.ended"
      testId="test-event"
      onClose={onClose}
      description={
        <>
          A signed sample event with <code className="font-mono">data.test = true</code> and call SID{" "}
          <code className="font-mono">CA000…</code>, sent once, now.
        </>
      }
    />
  );
}
