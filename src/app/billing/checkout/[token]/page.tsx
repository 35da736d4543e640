import { redirect } from "next/navigation";
import { Card } from "@/components/ui/card";
import { openCheckoutLink } from "@/server/services/billing/open-checkout-link";

export const dynamic = "force-dynamic";

/** Our checkout link: local mode completes payment here; Stripe mode sends the browser to a fresh Checkout Session. */
export default async function CheckoutPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const result = await openCheckoutLink(token);
  if (result.outcome === "redirect") redirect(result.url);
  if (result.outcome === "invalid-link" || result.outcome === "provider-unavailable") {
    const text =
      result.outcome === "invalid-link"
        ? "This checkout link is invalid or has expired. Ask for a new one from your account."
        : "The payment provider cannot be reached right now. Reload this page in a minute.";
    return (
      <main className="px-4">
        <Card title="Checkout not available">
          <p data-testid="checkout-result">{text}</p>
        </Card>
      </main>
    );
  }
  const message = {
    activated: "Payment complete. Your account is now active.",
    "already-active": "Your account is already active. Nothing more to pay.",
    suspended: "Your account is suspended. Resume it from the billing portal.",
  }[result.outcome];
  return (
    <main className="px-4">
      <Card title="Routekit checkout">
        <p data-testid="checkout-result">{message}</p>
        <p className="text-sm text-slate-500">
          Account {result.email} · status <strong data-testid="account-status">{result.status}</strong>
        </p>
        <p className="text-sm text-slate-500">Local billing mode: no payment provider is configured, so opening this page stands in for paying.</p>
      </Card>
    </main>
  );
}
