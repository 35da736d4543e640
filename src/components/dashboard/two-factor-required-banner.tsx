import Link from "next/link";
import { Alert } from "@/components/ui/alert";

/**
 * docs/decisions.md §18: shown on every page while the account requires two-factor sign-in of its members and
 * this member has not turned it on; until then every other page is refused (403).
 */
export function TwoFactorRequiredBanner() {
  return (
    <div className="mb-6">
      <Alert tone="warning" data-testid="two-factor-required-banner">
        This account requires two-factor sign-in.{" "}
        <Link href="/dashboard/security" className="font-semibold underline">
          Turn it on under Security
        </Link>{" "}
        to use the rest of the dashboard.
      </Alert>
    </div>
  );
}
