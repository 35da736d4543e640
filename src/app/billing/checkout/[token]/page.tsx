import { Card } from "@/components/ui/card";
import { completeLocalCheckout } from "@/server/services/billing/complete-local-checkout";

export const dynamic = "force-dynamic";

/** Local billing mode: opening this page is the payment (decisions §4). */
export default async function LocalCheckoutPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const result = await completeLocalCheckout(token);
  if (result.outcome === "invalid-link") {
    return (
      <main className="px-4">
        <Card title="Checkout link not valid">
          <p>This checkout link is invalid or has expired. Ask for a new one from your account.</p>
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
