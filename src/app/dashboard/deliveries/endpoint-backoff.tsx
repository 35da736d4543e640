import { LocalTime } from "@/components/ui/local-time";

/** Shown while a delivery's endpoint is backed off (docs/decisions.md §8): why nothing is being sent to it. */
export function EndpointBackoffNotice({ until, className }: { until: string | null; className?: string }) {
  if (!until) return null;
  return (
    <p
      role="status"
      data-testid="endpoint-backoff"
      className={`text-xs text-amber-700 dark:text-amber-300 ${className ?? ""}`}
    >
      This endpoint is failing; further attempts are paused until <LocalTime iso={until} />.
    </p>
  );
}
