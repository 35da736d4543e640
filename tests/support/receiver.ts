import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { eventTypes } from "../../src/server/webhooks/event-types";

/**
 * The event contract (docs/decisions.md §15): every event any test's receiver gets (a request that carries
 * `webhook-id`) validates against its type's JSON Schema from the catalogue that GET /api/event-types serves
 * (the same function builds both). Violations are collected here; event-contract.ts (a setup file of every
 * integration test file) fails the file that received one, whatever that file asserts.
 */
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
const validators = new Map<string, ValidateFunction>(
  eventTypes().eventTypes.map((e) => [e.type, ajv.compile(e.schema)]),
);
export const eventContractViolations: string[] = [];

function eventViolation(headers: IncomingMessage["headers"], body: string): string | null {
  if (headers["webhook-id"] === undefined) return null;
  let event: { type?: unknown };
  try {
    event = JSON.parse(body) as { type?: unknown };
  } catch {
    return `an event that is not JSON: ${body.slice(0, 200)}`;
  }
  const validate = validators.get(String(event?.type));
  if (!validate) return `an event of a type not in the catalogue: ${String(event?.type)}`;
  if (validate(event)) return null;
  return `${String((event as { type?: unknown }).type)} does not match its schema: ${ajv.errorsText(validate.errors)}\n${body.slice(0, 500)}`;
}

export type Received = { headers: IncomingMessage["headers"]; body: string; path: string; at: number };
export type Reply = (req: Received, res: ServerResponse) => unknown;

/** A local customer backend that records what it receives and answers as told. */
export async function startReceiver(reply: Reply = (_r, res) => res.end("ok")) {
  const received: Received[] = [];
  let handler = reply;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r = {
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        path: req.url ?? "/",
        at: Date.now(),
      };
      const violation = eventViolation(r.headers, r.body);
      if (violation) eventContractViolations.push(violation);
      received.push(r);
      void handler(r, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: (path = "/hook") => `http://127.0.0.1:${port}${path}`,
    received,
    /** Unique webhook-ids seen: what a receiver that deduplicates would process. */
    uniqueIds: () => new Set(received.map((r) => String(r.headers["webhook-id"]))),
    answer(next: Reply) {
      handler = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
