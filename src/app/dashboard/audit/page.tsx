import type { Metadata } from "next";
import { Suspense } from "react";
import { LoadingState } from "@/components/ui/states";
import { AuditLog } from "./audit-log";

export const metadata: Metadata = { title: "Audit log · Routekit" };

// The filters live in the URL (useSearchParams), so the page renders on the client under Suspense.
export default function AuditLogPage() {
  return (
    <Suspense fallback={<LoadingState label="Loading the audit log…" />}>
      <AuditLog />
    </Suspense>
  );
}
