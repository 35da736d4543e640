import type { Metadata } from "next";
import { Suspense } from "react";
import { LoadingState } from "@/components/ui/states";
import { Calls } from "./calls";

export const metadata: Metadata = { title: "Calls · Routekit" };

// The filters live in the URL (useSearchParams), so the page renders on the client under Suspense.
export default function CallsPage() {
  return (
    <Suspense fallback={<LoadingState label="Loading calls…" />}>
      <Calls />
    </Suspense>
  );
}
