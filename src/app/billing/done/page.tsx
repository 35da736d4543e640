import Link from "next/link";
import { Card } from "@/components/ui/card";

/** Where Stripe sends the browser back after checkout or the portal. */
export default async function BillingDonePage({ searchParams }: { searchParams: Promise<{ checkout?: string }> }) {
  const { checkout } = await searchParams;
  const text =
    checkout === "success"
      ? "Thank you. Your payment is being confirmed; your account becomes active in a moment."
      : checkout === "cancelled"
        ? "Checkout was cancelled. You can start it again whenever you are ready."
        : "You are done here.";
  return (
    <main className="px-4">
      <Card title="Routekit billing">
        <p>{text}</p>
        <p className="pt-2">
          <Link
            href="/dashboard"
            className="font-medium text-indigo-700 hover:underline"
            data-testid="back-to-dashboard"
          >
            Back to the dashboard
          </Link>
        </p>
      </Card>
    </main>
  );
}
