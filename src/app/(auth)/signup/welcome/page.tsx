import type { Metadata } from "next";
import { cookies } from "next/headers";
import { Alert } from "@/components/ui/alert";
import { ButtonLink } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { CopyField } from "@/components/ui/copy-button";
import { NEW_KEY_COOKIE } from "./new-key-cookie";

export const metadata: Metadata = { title: "Welcome · Routekit" };

/** After a sign-up without JavaScript: the first key, once (its cookie lives ten minutes, on this path only). */
export default async function WelcomePage() {
  const key = (await cookies()).get(NEW_KEY_COOKIE)?.value;
  return (
    <Card title="Your account is ready">
      {key && /^rtk_[A-Za-z0-9]+$/.test(key) ? (
        <>
          <Alert tone="warning" title="Save your API key now">
            This is the only time it is shown. Your backend sends it as <code>Authorization: Bearer …</code>. You can
            create more keys and revoke this one later.
          </Alert>
          <CopyField label="API key" value={key} data-testid="signup-api-key" />
        </>
      ) : (
        <p className="text-sm text-slate-600">
          Your first API key is no longer shown here. Create a new one on the API keys page.
        </p>
      )}
      <p className="text-sm text-slate-600">
        We sent a link to your email address: open it to confirm the address is yours.
      </p>
      <ButtonLink href="/dashboard" className="w-full" data-testid="continue-to-dashboard">
        Continue to the dashboard
      </ButtonLink>
    </Card>
  );
}
