"use client";

import { useQuery } from "@tanstack/react-query";
import { Alert } from "@/components/ui/alert";
import { ButtonLink } from "@/components/ui/button";
import { PageHeader, Panel } from "@/components/ui/card";
import { useTRPC } from "@/client/trpc/client";
import type { CallbackUrlPolicyOptions } from "@/shared/url-policy";
import { AddNumberForm } from "./add-number-form";
import { NumberList } from "./number-list";

/** docs/decisions.md §4: INACTIVE gets 402 and SUSPENDED 403 on adding, so the form is disabled (shared/account-standing.ts) and this says what to do. */
function AccountStandingNotice({ status }: { status: string }) {
  if (status === "INACTIVE") {
    return (
      <Alert
        tone="warning"
        title="Adding numbers needs an active account"
        data-testid="numbers-status-notice"
        actions={
          <ButtonLink href="/dashboard" size="sm">
            Go to checkout
          </ButtonLink>
        }
      >
        Your account is not active yet. Complete checkout from the overview, then add your numbers here.
      </Alert>
    );
  }
  if (status === "SUSPENDED") {
    return (
      <Alert
        tone="warning"
        title="Adding numbers needs an active account"
        data-testid="numbers-status-notice"
        actions={
          <ButtonLink href="/dashboard/billing" size="sm">
            Go to billing
          </ButtonLink>
        }
      >
        Your account is suspended: numbers cannot be added, changed or deleted. Update your payment or resume your plan
        in billing.
      </Alert>
    );
  }
  return null;
}

export function Numbers({ policy }: { policy: CallbackUrlPolicyOptions }) {
  const trpc = useTRPC();
  const account = useQuery(trpc.account.get.queryOptions());
  return (
    <>
      <PageHeader
        title="Numbers"
        description="The Twilio numbers Routekit answers, and the URLs that receive each call's events."
        actions={
          <ButtonLink href="/dashboard/setup" variant="secondary" size="sm">
            Setup guide
          </ButtonLink>
        }
      />
      <div className="space-y-6">
        {account.data ? <AccountStandingNotice status={account.data.account.status} /> : null}
        <Panel title="Register a number">
          <AddNumberForm policy={policy} />
        </Panel>
        <Panel title="Your numbers">
          <NumberList policy={policy} />
        </Panel>
      </div>
    </>
  );
}
