import { signToken } from "../../auth/tokens";
import { env } from "../../env";

/** A signed link to one of our billing pages (`/billing/checkout/…` or `/billing/portal/…`) for the account. */
export async function localBillingLink(kind: "checkout" | "portal", accountId: string): Promise<string> {
  const { token } = await signToken(kind, accountId);
  return `${env().publicBaseUrl}/billing/${kind}/${token}`;
}
