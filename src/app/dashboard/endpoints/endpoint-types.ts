import { ALL_EVENTS, ENDPOINT_EVENT_TYPES, EVENT_CATALOGUE } from "@/shared/schemas/events";

/** The type picker's choices: every type an endpoint may subscribe to, with the catalogue's description. */
export const TYPE_CHOICES = ENDPOINT_EVENT_TYPES.map((type) => ({
  type,
  description: EVENT_CATALOGUE.find((e) => e.type === type)?.description ?? "",
}));

export { ALL_EVENTS };

/** An endpoint's filter in words: "All events" for `*`, else its types. */
export function typesLabel(types: readonly string[]): string[] {
  return types.includes(ALL_EVENTS) ? ["All events"] : [...types];
}
