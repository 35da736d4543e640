"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { messageOf, useTRPC } from "@/client/trpc/client";
import type { z } from "zod";
import type { ZAccountSettingsOutput } from "@/shared/schemas/account-settings";

type Settings = z.infer<typeof ZAccountSettingsOutput>;

/**
 * Until the owner opens the verification link, every dashboard page says so, with a way to send it again.
 * `initial` is the settings as the server read them for this page, so the banner is rendered on arrival.
 */
export function UnverifiedBanner({ initial }: { initial: Settings }) {
  const trpc = useTRPC();
  const settings = useQuery({ ...trpc.settings.get.queryOptions(), initialData: initial });
  const resend = useMutation(trpc.settings.resendVerification.mutationOptions());
  if (!settings.data || settings.data.emailVerified) return null;
  return (
    <div className="mb-6">
      <Alert
        tone="warning"
        data-testid="unverified-banner"
        actions={
          <Button
            size="sm"
            variant="secondary"
            loading={resend.isPending}
            disabled={resend.isSuccess}
            onClick={() => resend.mutate()}
          >
            {resend.isSuccess ? "Sent" : "Resend the link"}
          </Button>
        }
      >
        Confirm your email address: open the link we sent to{" "}
        <span className="break-all font-medium">{settings.data.email}</span>.
        {resend.isSuccess ? " A new link is on its way." : null}
        {resend.isError ? ` ${messageOf(resend.error)}` : null}
      </Alert>
    </div>
  );
}
