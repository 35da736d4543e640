import type { EventBodies } from "../generated/events.js";

export type EventType = keyof EventBodies;

/** One event of the catalogue, its `type` narrowed to the one literal. */
export type EventOf<T extends EventType> = Omit<EventBodies[T], "type"> & { type: T };

/** Every event Routekit sends: a union that narrows on `type` (`if (event.type === "call.ended") event.data…`). */
export type RoutekitEvent = { [T in EventType]: EventOf<T> }[EventType];
