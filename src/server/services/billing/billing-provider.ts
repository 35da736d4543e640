import { env } from "../../env";
import { signToken } from "../../auth/tokens";

/**
 * The billing seam. Local mode (no Stripe key, the embedded default): checkout
 * is a page of this service that completes payment when opened. Stripe mode
 * plugs in here behind the same functions.
 */
export async function createCheckoutUrl(accountId: string): Promise<string> {
  const { token } = await signToken("checkout", accountId);
  return `${env().publicBaseUrl}/billing/checkout/${token}`;
}
