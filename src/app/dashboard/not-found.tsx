import type { Metadata } from "next";
import { ButtonLink } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/states";

export const metadata: Metadata = { title: "Not found · Routekit" };

export default function DashboardNotFound() {
  return (
    <>
      <PageHeader title="Page not found" />
      <EmptyState
        title="There is no dashboard page at this address"
        data-testid="dashboard-not-found"
        action={<ButtonLink href="/dashboard">Go to the overview</ButtonLink>}
      >
        The link may be old or mistyped. The menu has every page.
      </EmptyState>
    </>
  );
}
