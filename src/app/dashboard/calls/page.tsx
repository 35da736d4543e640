import type { Metadata } from "next";
import { Suspense } from "react";
import { LoadingState } from "@/components/ui/states";
import { serverCallbackPolicy } from "@/server/webhooks/http/server-callback-policy";
import { Calls } from "./calls";

export const metadata: Metadata = { title: "Calls · Routekit" };

// The filters live in the URL (useSearchParams), so the page renders on the client under Suspense.
export default function CallsPage() {
  // A call's replay checks its URL in the browser with the API's own rule, so it needs the server's URL policy.
  const { allowPrivate } = serverCallbackPolicy();
  return (
    <Suspense fallback={<LoadingState label="Loading calls…" />}>
      <Calls policy={{ allowPrivate }} />
    </Suspense>
  );
}
