import { z } from "zod";
import { EVENT_CATALOGUE, type EventType, eventSchemaOf } from "../../shared/schemas/events";

// Per module graph: a cache of a pure function of the event catalogue.
let cached: { eventTypes: { type: EventType; description: string; schema: Record<string, unknown> }[] } | undefined;

/**
 * GET /api/event-types (docs/decisions.md §15): the catalogue with one JSON Schema per type, generated from the
 * same zod envelopes as the OpenAPI document's `webhooks` (the envelope, its `type` narrowed to the one type).
 * The same for every caller and every request of a process: built once.
 */
export function eventTypes() {
  cached ??= {
    eventTypes: EVENT_CATALOGUE.map((e) => ({
      type: e.type,
      description: e.description,
      schema: z.toJSONSchema(eventSchemaOf(e.type), { io: "output", unrepresentable: "any" }) as Record<
        string,
        unknown
      >,
    })),
  };
  return cached;
}
