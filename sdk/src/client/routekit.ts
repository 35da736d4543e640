import { resources } from "../generated/resources.js";
import { type RoutekitOptions, Transport } from "./transport.js";

type Resources = ReturnType<typeof resources>;

/**
 * The typed client: one method per route of the API, grouped as the operationIds name them
 * (`phoneNumbers.create`, `calls.hangup`, …). Each resolves with the answer's body or throws a RoutekitError
 * (the service answered an error) or a RoutekitConnectionError (it did not answer).
 *
 *   const routekit = new Routekit({ apiKey: process.env.ROUTEKIT_API_KEY });
 *   const { phoneNumber } = await routekit.phoneNumbers.create({ phoneNumber: "+14155550123", … });
 */
export interface Routekit extends Resources {}
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the resources are assigned in the constructor, typed by the interface
export class Routekit {
  constructor(options: RoutekitOptions = {}) {
    Object.assign(this, resources(new Transport(options)));
  }
}
