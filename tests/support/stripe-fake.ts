import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";

/**
 * A local fake of the Stripe API calls the service makes, on Stripe's wire
 * format, so integration tests run the real `stripe` SDK against it:
 * `new Stripe(key, { host: "127.0.0.1", port, protocol: "http" })`.
 * Requests are bracket-encoded forms, responses JSON; errors are Stripe's
 * `{ error: { type, code, message, param } }` so the SDK raises its own error classes.
 */

type Params = Record<string, unknown>;
type Customer = {
  id: string;
  email?: string;
  metadata: Record<string, string>;
  invoice_settings: { default_payment_method: string | null };
};
type MeterEvent = { event_name: string; identifier: string; payload: Record<string, string>; timestamp: number };
type PriceConfig = {
  unit_amount?: number;
  unit_amount_decimal?: string;
  recurring: { interval: "month"; usage_type: "licensed" | "metered"; meter?: string };
};
type ErrorBody = { type: string; code?: string; message: string; param?: string };

export type FakeStripe = {
  url: string;
  port: number;
  /** every request received (including ones answered by failNext or setDown): method, path, parsed (nested) form params */
  requests: {
    method: string;
    path: string;
    params: Record<string, unknown>;
    idempotencyKey: string | null;
    at: number;
  }[];
  customers: Map<string, Customer>;
  meterEvents: MeterEvent[];
  /** The next `count` requests whose path starts with `pathPrefix` fail with `status` (e.g. 500 api_error); for retry tests. */
  failNext(pathPrefix: string, status: number, count?: number): void;
  /** Simulate Stripe being down: every request is answered by destroying the socket until restored. */
  setDown(down: boolean): void;
  /** Builds a Stripe event JSON string and its Stripe-Signature header, signed with stripe.webhooks.generateTestHeaderString. */
  signedEvent(opts: { type: string; object: Record<string, unknown>; secret: string; id?: string; created?: number }): {
    payload: string;
    header: string;
    id: string;
  };
  close(): Promise<void>;
};

/** Thrown by route handlers; answered as Stripe's error body with this status. */
class Failure extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.message);
  }
}
const invalid = (message: string, extra: Omit<ErrorBody, "type" | "message"> = {}, status = 400) =>
  new Failure(status, { type: "invalid_request_error", message, ...extra });
const missingParam = (param: string) =>
  invalid(`Missing required param: ${param}.`, { code: "parameter_missing", param });
// A missing object named in the body is a 400; in the URL path it is a 404 (as Stripe does).
const noSuch = (kind: string, id: string, param: string, status = 400) =>
  invalid(`No such ${kind}: '${id}'`, { code: "resource_missing", param }, status);

const newId = (prefix: string, chars = 14) =>
  prefix + randomBytes(chars).toString("base64url").replace(/[-_]/g, "0").slice(0, chars);
const nowSec = () => Math.floor(Date.now() / 1000);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const isObj = (v: unknown): v is Params => typeof v === "object" && v !== null && !Array.isArray(v);
const strings = (v: unknown): Record<string, string> =>
  isObj(v) ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === "string")) : {};

/** Stripe's bracket encoding: `a[b][0][c]=x` → `{ a: { b: [{ c: "x" }] } }`. Values stay strings, as on the wire. */
function parseForm(body: string): Params {
  const root: Params = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const segs = (key.match(/^[^[]+|\[[^\]]*\]/g) ?? [key]).map((s) => s.replace(/^\[|\]$/g, ""));
    let node = root;
    segs.forEach((seg, i) => {
      const k = seg === "" ? String(Object.keys(node).length) : seg; // `expand[]=x`
      if (i === segs.length - 1) return void (node[k] = value);
      const next = isObj(node[k]) ? (node[k] as Params) : {};
      node = node[k] = next;
    });
  }
  // Objects keyed 0..n-1 were arrays (`line_items[0]`, `line_items[1]`).
  const arrays = (v: unknown): unknown => {
    if (!isObj(v)) return v;
    const entries = Object.entries(v).map(([k, x]) => [k, arrays(x)] as const);
    return entries.length > 0 && entries.every(([k], i) => k === String(i))
      ? entries.map(([, x]) => x)
      : Object.fromEntries(entries);
  };
  return arrays(root) as Params;
}

export async function startFakeStripe(opts: {
  secretKey: string;
  prices: Record<string, PriceConfig>;
  port?: number;
}): Promise<FakeStripe> {
  const requests: FakeStripe["requests"] = [];
  const customers = new Map<string, Customer>();
  const customerCreated = new Map<string, number>();
  const meterEvents: MeterEvent[] = [];
  const identifiersSeen = new Map<string, number>(); // identifier → when received (ms): uniqueness is a rolling 24 h
  const faults: { prefix: string; status: number; remaining: number }[] = [];
  // Idempotency-Key → the request it was first used with and the response. Like Stripe, keys cover every POST
  // (the SDK sends one on each POST, reused across its own retries). Only successes are stored: an injected
  // failNext failure stands for a fault before the request executed, so the retry really runs.
  const idempotent = new Map<string, { fingerprint: string; body: unknown }>();
  let down = false;
  let url = "";

  const renderCustomer = (c: Customer) => ({
    ...c,
    object: "customer",
    created: customerCreated.get(c.id) ?? nowSec(),
    livemode: false,
    email: c.email ?? null,
  });
  const customer = (id: string | undefined, param: string, status = 400): Customer => {
    if (!id) throw missingParam(param);
    const c = customers.get(id);
    if (!c) throw noSuch("customer", id, param, status);
    return c;
  };
  const updateCustomer = (c: Customer, p: Params) => {
    if (p.email !== undefined) c.email = str(p.email) || undefined;
    if (p.metadata === "") c.metadata = {}; // `metadata=""` unsets all keys; `metadata[k]=""` unsets one
    for (const [k, v] of Object.entries(strings(p.metadata))) v === "" ? delete c.metadata[k] : (c.metadata[k] = v);
    const pm = isObj(p.invoice_settings) ? p.invoice_settings.default_payment_method : undefined;
    if (pm !== undefined) c.invoice_settings.default_payment_method = str(pm) || null;
    return renderCustomer(c);
  };
  const renderPrice = (id: string, p: PriceConfig) => {
    const decimal = p.unit_amount_decimal ?? (p.unit_amount !== undefined ? String(p.unit_amount) : null);
    const amount = p.unit_amount ?? (decimal !== null && /^\d+$/.test(decimal) ? Number(decimal) : null);
    const recurring = {
      interval: p.recurring.interval,
      interval_count: 1,
      usage_type: p.recurring.usage_type,
      meter: p.recurring.meter ?? null,
      trial_period_days: null,
    };
    return {
      id,
      object: "price",
      active: true,
      billing_scheme: "per_unit",
      currency: "usd",
      livemode: false,
      metadata: {},
      type: "recurring",
      unit_amount: amount,
      unit_amount_decimal: decimal,
      recurring,
    };
  };

  function checkoutSession(p: Params) {
    const mode = str(p.mode);
    if (!mode) throw missingParam("mode");
    if (!["payment", "setup", "subscription"].includes(mode))
      throw invalid(`Invalid mode: must be one of payment, setup, or subscription`, { param: "mode" });
    if (p.customer !== undefined) customer(str(p.customer), "customer");
    const items = Array.isArray(p.line_items) ? p.line_items : [];
    if (mode === "subscription" && items.length === 0) throw missingParam("line_items");
    items.forEach((item: unknown, i) => {
      const li = isObj(item) ? item : {};
      const priceId = str(li.price);
      if (!priceId) throw missingParam(`line_items[${i}][price]`);
      const price = opts.prices[priceId];
      if (!price) throw noSuch("price", priceId, `line_items[${i}][price]`);
      if (price.recurring.usage_type === "metered" && li.quantity !== undefined) {
        throw invalid(
          `Quantity should not be specified where usage_type is \`metered\`. Remove quantity from \`line_items[${i}]\``,
          { param: `line_items[${i}][quantity]` },
        );
      }
    });
    const id = newId("cs_test_", 58);
    const created = nowSec();
    return {
      id,
      object: "checkout.session",
      url: `${url}/c/pay/${id}`,
      mode,
      status: "open",
      payment_status: "unpaid",
      livemode: false,
      created,
      expires_at: created + 86_400,
      customer: str(p.customer) ?? null,
      client_reference_id: str(p.client_reference_id) ?? null,
      metadata: strings(p.metadata),
      success_url: str(p.success_url) ?? null,
      cancel_url: str(p.cancel_url) ?? null,
      line_items: p.line_items ?? [],
    };
  }

  function meterEvent(p: Params) {
    const event_name = str(p.event_name);
    if (!event_name) throw missingParam("event_name");
    const payload = strings(p.payload);
    customer(payload.stripe_customer_id, "payload[stripe_customer_id]");
    if (payload.value === undefined) throw missingParam("payload[value]");
    const now = nowSec();
    const timestamp = p.timestamp === undefined ? now : Number(p.timestamp);
    if (!Number.isInteger(timestamp) || timestamp < now - 35 * 86_400 || timestamp > now + 300) {
      throw invalid("Timestamp must be within the past 35 calendar days or up to 5 minutes in the future.", {
        param: "timestamp",
      });
    }
    const identifier = str(p.identifier) ?? newId("idmp_");
    const seen = identifiersSeen.get(identifier);
    if (seen !== undefined && Date.now() - seen < 86_400_000)
      throw invalid(`An event already exists with identifier ${identifier}.`, { param: "identifier" });
    identifiersSeen.set(identifier, Date.now());
    const event = { event_name, identifier, payload, timestamp };
    meterEvents.push(event);
    return { object: "billing.meter_event", created: now, livemode: false, ...event };
  }

  const routes: [method: string, path: RegExp, handler: (p: Params, id: string) => unknown][] = [
    [
      "POST",
      /^\/v1\/customers$/,
      (p) => {
        const c: Customer = { id: newId("cus_"), metadata: {}, invoice_settings: { default_payment_method: null } };
        customers.set(c.id, c);
        customerCreated.set(c.id, nowSec());
        return updateCustomer(c, p);
      },
    ],
    ["GET", /^\/v1\/customers\/([^/]+)$/, (_p, id) => renderCustomer(customer(id, "id", 404))],
    ["POST", /^\/v1\/customers\/([^/]+)$/, (p, id) => updateCustomer(customer(id, "id", 404), p)],
    ["POST", /^\/v1\/checkout\/sessions$/, checkoutSession],
    [
      "POST",
      /^\/v1\/billing_portal\/sessions$/,
      (p) => {
        const c = customer(str(p.customer), "customer");
        const id = newId("bps_", 24);
        return {
          id,
          object: "billing_portal.session",
          customer: c.id,
          return_url: str(p.return_url) ?? null,
          url: `${url}/p/session/${id}`,
          created: nowSec(),
          livemode: false,
        };
      },
    ],
    [
      "GET",
      /^\/v1\/prices\/([^/]+)$/,
      (_p, id) => {
        const price = opts.prices[id];
        if (!price) throw noSuch("price", id, "id", 404);
        return renderPrice(id, price);
      },
    ],
    ["POST", /^\/v1\/billing\/meter_events$/, meterEvent],
    // Cancelling a subscription now (closing an account). The fake keeps no subscriptions, so any id is cancelled.
    [
      "DELETE",
      /^\/v1\/subscriptions\/([^/]+)$/,
      (_p, id) => ({ id, object: "subscription", status: "canceled", canceled_at: nowSec(), livemode: false }),
    ],
  ];

  function authenticate(authorization: string | undefined) {
    const key = authorization?.match(/^Bearer (.+)$/)?.[1];
    if (!key)
      throw new Failure(401, {
        type: "authentication_error",
        message:
          "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
      });
    if (key !== opts.secretKey)
      throw new Failure(401, {
        type: "authentication_error",
        code: "api_key_invalid",
        message: `Invalid API Key provided: ${key.slice(0, 8)}****${key.slice(-4)}`,
      });
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    let body = "";
    for await (const chunk of req) body += chunk;
    const method = req.method ?? "GET";
    const { pathname: path, search } = new URL(req.url ?? "/", "http://fake");
    const params = parseForm(method === "GET" ? search.slice(1) : body);
    const idempotencyKey = str(req.headers["idempotency-key"]) ?? null;
    requests.push({ method, path, params, idempotencyKey, at: Date.now() });
    // Down: the connection drops; the SDK sees ECONNRESET and raises StripeConnectionError.
    if (down) return void req.socket.destroy();

    const send = (status: number, json: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, {
        "content-type": "application/json",
        "request-id": newId("req_"),
        ...(idempotencyKey && { "idempotency-key": idempotencyKey }),
        ...headers,
      });
      res.end(JSON.stringify(json));
    };
    const fault = faults.find((f) => f.remaining > 0 && path.startsWith(f.prefix));
    if (fault) {
      fault.remaining--;
      const type =
        fault.status >= 500
          ? "api_error"
          : fault.status === 429
            ? "rate_limit_error"
            : fault.status === 401
              ? "authentication_error"
              : "invalid_request_error";
      return send(fault.status, {
        error: { type, message: `Injected failure (${fault.status}) from the fake Stripe.` },
      });
    }
    try {
      authenticate(req.headers.authorization);
      const fingerprint = `${method} ${path} ${body}`;
      const replay = method === "POST" && idempotencyKey ? idempotent.get(idempotencyKey) : undefined;
      if (replay && replay.fingerprint !== fingerprint) {
        throw new Failure(400, {
          type: "idempotency_error",
          message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
        });
      }
      if (replay) return send(200, replay.body, { "idempotent-replayed": "true" });
      for (const [m, pattern, handler] of routes) {
        const match = method === m ? pattern.exec(path) : null;
        if (!match) continue;
        const result = handler(params, decodeURIComponent(match[1] ?? ""));
        if (method === "POST" && idempotencyKey) idempotent.set(idempotencyKey, { fingerprint, body: result });
        return send(200, result);
      }
      throw invalid(
        `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
        {},
        404,
      );
    } catch (err) {
      if (err instanceof Failure) return send(err.status, { error: err.body });
      send(500, {
        error: { type: "api_error", message: `Fake Stripe bug: ${err instanceof Error ? err.message : String(err)}` },
      });
    }
  }

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) =>
    server.once("error", reject).listen(opts.port ?? 0, "127.0.0.1", resolve),
  );
  const port = (server.address() as AddressInfo).port;
  url = `http://127.0.0.1:${port}`;
  const signer = new Stripe(opts.secretKey);

  return {
    url,
    port,
    requests,
    customers,
    meterEvents,
    failNext: (prefix, status, count = 1) => void faults.push({ prefix, status, remaining: count }),
    setDown: (value) => void (down = value),
    signedEvent({ type, object, secret, id = newId("evt_", 24), created = nowSec() }) {
      const event = {
        id,
        object: "event",
        api_version: Stripe.API_VERSION,
        created,
        type,
        livemode: false,
        data: { object },
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
      };
      const payload = JSON.stringify(event);
      return { payload, header: signer.webhooks.generateTestHeaderString({ payload, secret }), id };
    },
    close: async () => {
      server.closeAllConnections(); // the SDK keeps connections alive; close() alone would wait for them
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
