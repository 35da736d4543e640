"use client";

import { useQuery } from "@tanstack/react-query";
import { Alert } from "@/components/ui/alert";
import { PageHeader, Panel } from "@/components/ui/card";
import { QueryState } from "@/components/ui/query-state";
import { appErrorOf, useTRPC } from "@/client/trpc/client";
import type { CallbackUrlPolicyOptions } from "@/shared/url-policy";
import { ConnectTwilioForm } from "./connect-twilio-form";
import { ConnectionSummary } from "./connection-summary";
import { EngineUrlPanel } from "./engine-url-panel";
import { TwilioNumbers } from "./twilio-numbers";

/** docs/decisions.md §10: connect (or disconnect) Twilio, then register and set up its numbers in one click each. */
export function Twilio({ policy }: { policy: CallbackUrlPolicyOptions }) {
  const trpc = useTRPC();
  const connection = useQuery(trpc.twilioConnection.get.queryOptions(undefined, { retry: false }));

  return (
    <>
      <PageHeader
        title="Twilio"
        description="Connect your Twilio account: Routekit checks which numbers are yours, points them at your engine URL, and verifies every request of every call."
      />
      <div className="space-y-6">
        <QueryState
          query={connection}
          loadingLabel="Loading your Twilio connection…"
          // No connection yet is the API's NOT_FOUND: the page offers to connect.
          error={(err) =>
            appErrorOf(err)?.code === "NOT_FOUND" ? (
              <>
                <Alert tone="warning" title="Your engine URL is a bearer secret" data-testid="twilio-not-connected">
                  Without a Twilio connection your engine URL is as sensitive as an API key: anyone who knows it can
                  send requests that look like calls, so keep it private and rotate it if it may have leaked. Connecting
                  Twilio makes forged calls impossible: every request must then carry Twilio&apos;s signature made with
                  your auth token. It also proves which numbers are yours, so nobody else can register them.
                </Alert>
                <Panel title="Connect your Twilio account">
                  <ConnectTwilioForm />
                </Panel>
              </>
            ) : null
          }
        >
          {({ twilioConnection }) => (
            <>
              <ConnectionSummary connection={twilioConnection} />
              <TwilioNumbers policy={policy} />
            </>
          )}
        </QueryState>
        <EngineUrlPanel connected={Boolean(connection.data)} />
      </div>
    </>
  );
}
