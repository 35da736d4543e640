/**
 * The refusals of a replay (docs/decisions.md §23) that need more than the API's sentence, in plain words: what
 * happened and what to do. Null: the form shows the API's own message, under the URL field when it names it.
 */
export function replayRefusal(
  error: { code: string; message: string; details?: { path: string }[] } | null,
): string | null {
  switch (error?.code) {
    case "RATE_LIMITED":
      return "Ten replays a minute is the most an account may send, and this minute's are used. Try again in a minute.";
    case "NOT_FOUND":
      return "This call can't be replayed: only inbound calls of the last 30 days can, and this one is older or no longer there.";
    case "VALIDATION_FAILED":
      if (error.details?.some((d) => d.path === "onCallStartUrl")) return null;
      return `The URL was refused: ${error.message}`;
    default:
      return null;
  }
}
