/**
 * The only way the service may send an HTTP request to a customer-supplied URL.
 *
 * SSRF defences, in order: the static URL policy; one DNS resolution whose every answer must be
 * public unicast; a connection pinned to the checked address (the socket's `lookup` hook returns it
 * instead of resolving again, so a DNS-rebinding answer on a second query is never used) while TLS
 * SNI, certificate verification and `Host` still use the customer's hostname; no redirects; one
 * deadline for DNS + connect + response; a cap on how much response body is read.
 *
 * Connections are kept alive, pooled per checked address and hostname: a pooled socket only ever
 * carries requests to the address that was checked for that hostname, exactly where a fresh
 * connection would go. A request on a reused socket that the server closed meanwhile (the race
 * every keep-alive client has) is sent once more, on a fresh connection, within the same deadline.
 *
 * Deliberately silent: callers decide what to log, and URLs/bodies may carry customer secrets.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http, { type IncomingHttpHeaders } from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { performance } from "node:perf_hooks";
import { checkCallbackUrl, isPublicUnicastIp } from "../../../shared/url-policy";

export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

type CallbackRequest = {
  url: string;
  method?: "POST";
  headers?: Record<string, string>;
  body?: string;
  /** Deadline for the whole exchange: DNS, connect, TLS, response headers and body. */
  timeoutMs: number;
  /** Bytes of response body kept; the rest is not read. Defaults to 64 KiB. */
  maxResponseBytes?: number;
};

export type CallbackResponse = {
  status: number;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** UTF-8 decoded, at most `maxResponseBytes` bytes before decoding. */
  body: string;
  /** True when the server sent more than `maxResponseBytes`; the connection was then dropped. */
  truncated: boolean;
  durationMs: number;
  /** The IP address actually connected to. */
  remoteAddress: string;
};

export type CallbackRequestErrorKind = "invalid_url" | "blocked_address" | "dns" | "timeout" | "connection";

export class CallbackRequestError extends Error {
  override readonly name = "CallbackRequestError";
  readonly kind: CallbackRequestErrorKind;
  /** The resolved address that was refused or connected to, when known. */
  readonly address: string | undefined;
  /**
   * The connection was refused, or reset or closed by the server, before any answer came: nothing of
   * the request was acted on as far as HTTP can tell, so it may be sent again (docs/decisions.md §12).
   */
  readonly refusedBeforeAnswer: boolean;

  constructor(
    kind: CallbackRequestErrorKind,
    message: string,
    options: { cause?: unknown; address?: string; refusedBeforeAnswer?: boolean } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.address = options.address;
    this.refusedBeforeAnswer = options.refusedBeforeAnswer === true;
  }
}

export type CallbackClientOptions = {
  allowPrivate: boolean;
  /** Resolver, called once per request with `{ all: true }`. Defaults to `dns.lookup`. */
  lookup?: LookupFunction;
};

export type CallbackClient = { send(req: CallbackRequest): Promise<CallbackResponse> };

export function createCallbackClient(opts: CallbackClientOptions): CallbackClient {
  const resolver = opts.lookup ?? (dnsLookup as LookupFunction);
  const agents = new AgentPool();
  return {
    async send(req) {
      const startedAt = performance.now();
      if (!Number.isFinite(req.timeoutMs) || req.timeoutMs <= 0) throw new RangeError("timeoutMs must be positive");
      const maxResponseBytes = req.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
      if (!Number.isInteger(maxResponseBytes) || maxResponseBytes < 0) {
        throw new RangeError("maxResponseBytes must be a non-negative integer");
      }

      const check = checkCallbackUrl(req.url, { allowPrivate: opts.allowPrivate });
      if (!check.ok) throw new CallbackRequestError("invalid_url", `Callback URL ${check.reason}`);
      const url = check.url;

      const deadline = new Deadline(req.timeoutMs);
      try {
        const target = await deadline.race(resolveTarget(url, resolver));
        if (!opts.allowPrivate) {
          const refused = target.all.find((a) => !isPublicUnicastIp(a.address));
          if (refused) {
            throw new CallbackRequestError(
              "blocked_address",
              "Callback host resolves to a private or reserved address",
              {
                address: refused.address,
              },
            );
          }
        }
        const agent = agents.agentFor(url, target.pinned);
        try {
          return await exchange(url, target.pinned, agent, req, maxResponseBytes, deadline, startedAt);
        } catch (err) {
          if (!(err instanceof StaleSocketError)) throw err;
          return await exchange(url, target.pinned, agents.fresh(url), req, maxResponseBytes, deadline, startedAt);
        }
      } finally {
        deadline.clear();
      }
    },
  };
}

type ResolvedTarget = { pinned: LookupAddress; all: LookupAddress[] };

async function resolveTarget(url: URL, resolver: LookupFunction): Promise<ResolvedTarget> {
  const host = unbracket(url.hostname);
  const literalFamily = isIP(host);
  if (literalFamily !== 0) {
    const only = { address: host, family: literalFamily };
    return { pinned: only, all: [only] };
  }

  const all = await new Promise<LookupAddress[]>((resolve, reject) => {
    try {
      resolver(host, { all: true, family: 0 }, (err, addresses, family) => {
        if (err) return reject(new CallbackRequestError("dns", `Could not resolve ${host}`, { cause: err }));
        resolve(
          typeof addresses === "string" ? [{ address: addresses, family: family ?? isIP(addresses) }] : addresses,
        );
      });
    } catch (err) {
      reject(new CallbackRequestError("dns", `Could not resolve ${host}`, { cause: err }));
    }
  });
  const usable = all.filter((a) => isIP(a.address) !== 0);
  const first = usable[0];
  if (!first || usable.length !== all.length) {
    throw new CallbackRequestError("dns", `Resolving ${host} returned no usable address`);
  }
  return { pinned: { address: first.address, family: isIP(first.address) }, all: usable };
}

/** Stands in for DNS inside the socket: it can only ever answer the address already checked. */
function pinnedLookup(expectedHost: string, pinned: LookupAddress): LookupFunction {
  return (hostname, options, callback) => {
    if (hostname !== expectedHost) {
      const err: NodeJS.ErrnoException = new Error(`Unexpected lookup for ${hostname}`);
      err.code = "ENOTFOUND";
      return process.nextTick(callback, err, "", 0);
    }
    if (options.all) return process.nextTick(callback, null, [pinned]);
    process.nextTick(callback, null, pinned.address, pinned.family);
  };
}

/** A pooled socket the server had closed before our request got any answer: safe to send again. */
class StaleSocketError extends Error {}

const MAX_AGENTS = 512;
const MAX_FREE_SOCKETS_PER_TARGET = 16;
/** Idle pooled sockets close after this, or sooner when the server's Keep-Alive header says so. */
const IDLE_SOCKET_MS = 4_000;

/**
 * Keep-alive agents, one per (scheme, checked address, port, hostname). Bounded: the least
 * recently used agent is dropped when there are too many; its idle sockets then time out.
 */
class AgentPool {
  private readonly agents = new Map<string, http.Agent>();

  agentFor(url: URL, pinned: LookupAddress): http.Agent {
    const key = `${url.protocol}//${pinned.address}|${url.port}|${url.hostname}`;
    const found = this.agents.get(key);
    if (found) {
      this.agents.delete(key); // most recently used goes last
      this.agents.set(key, found);
      return found;
    }
    const agent = this.fresh(url, true);
    this.agents.set(key, agent);
    if (this.agents.size > MAX_AGENTS) this.agents.delete(this.agents.keys().next().value!);
    return agent;
  }

  /** An agent of its own, for a request that must not reuse a socket. */
  fresh(url: URL, keepAlive = false): http.Agent {
    const options = { keepAlive, maxFreeSockets: MAX_FREE_SOCKETS_PER_TARGET, timeout: IDLE_SOCKET_MS };
    return url.protocol === "https:" ? new https.Agent(options) : new http.Agent(options);
  }
}

function exchange(
  url: URL,
  pinned: LookupAddress,
  agent: http.Agent,
  req: CallbackRequest,
  maxResponseBytes: number,
  deadline: Deadline,
  startedAt: number,
): Promise<CallbackResponse> {
  const host = unbracket(url.hostname);
  const isHttps = url.protocol === "https:";
  const body = req.body ?? "";

  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers ?? {})) {
    // Host and framing are derived from the checked URL and the actual body, never from the caller.
    if (!["host", "content-length", "transfer-encoding", "connection"].includes(name.toLowerCase())) {
      headers[name] = value;
    }
  }
  headers.host = url.host;
  headers["content-length"] = String(Buffer.byteLength(body));

  const options: https.RequestOptions = {
    method: req.method ?? "POST",
    hostname: host,
    port: url.port === "" ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers,
    lookup: pinnedLookup(host, pinned),
    agent,
  };
  if (isHttps && isIP(host) === 0) {
    // SNI forbids IP addresses and trailing dots; certificate checks strip the dot themselves.
    options.servername = host.replace(/\.+$/, "");
  }

  return new Promise<CallbackResponse>((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      outcome();
    };
    const fail = (kind: CallbackRequestErrorKind, message: string, cause?: unknown, refusedBeforeAnswer = false) =>
      settle(() =>
        reject(new CallbackRequestError(kind, message, { cause, address: pinned.address, refusedBeforeAnswer })),
      );

    const request = (isHttps ? https : http).request(options, (res) => {
      const chunks: Buffer[] = [];
      let received = 0;
      let truncated = false;

      const finish = () =>
        settle(() =>
          resolve({
            status: res.statusCode ?? 0,
            headers: flattenHeaders(res.headers),
            body: decodeUtf8Prefix(Buffer.concat(chunks), truncated),
            truncated,
            durationMs: Math.round(performance.now() - startedAt),
            remoteAddress: res.socket?.remoteAddress ?? pinned.address,
          }),
        );

      res.on("data", (chunk: Buffer) => {
        if (settled) return;
        const room = maxResponseBytes - received;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          received += room;
          truncated = true;
          finish();
          // Stop reading: the rest could be endless and nothing downstream wants it.
          request.destroy();
          return;
        }
        chunks.push(chunk);
        received += chunk.length;
      });
      res.on("end", finish);
      res.on("error", (err) => fail("connection", "Connection failed while reading the callback response", err));
      res.on("close", () => fail("connection", "Connection closed before the callback response completed"));
    });

    let answered = false;
    request.on("response", () => (answered = true));
    request.on("error", (err) => {
      const code = (err as NodeJS.ErrnoException).code;
      if (request.reusedSocket && !answered && (code === "ECONNRESET" || code === "EPIPE")) {
        return settle(() => reject(new StaleSocketError("pooled socket closed by the server")));
      }
      const refused = !answered && (code === "ECONNREFUSED" || code === "ECONNRESET" || code === "EPIPE");
      fail(
        "connection",
        code === "ECONNREFUSED"
          ? `Connection refused by ${pinned.address} port ${options.port ?? (isHttps ? 443 : 80)}`
          : refused
            ? "Connection reset before any answer"
            : connectionFailure(err as NodeJS.ErrnoException, isHttps),
        err,
        refused,
      );
    });
    deadline.onExpire(() => {
      fail("timeout", `Callback did not complete within ${req.timeoutMs} ms`);
      request.destroy();
    });
    request.end(body);
  });
}

/** One timer for the whole send, so DNS time is taken out of the connect/response budget. */
class Deadline {
  private readonly timer: NodeJS.Timeout;
  private expired = false;
  private listeners: Array<() => void> = [];

  constructor(private readonly timeoutMs: number) {
    this.timer = setTimeout(() => {
      this.expired = true;
      for (const listener of this.listeners) listener();
    }, timeoutMs);
  }

  onExpire(listener: () => void) {
    if (this.expired) listener();
    else this.listeners.push(listener);
  }

  race<T>(work: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.onExpire(() =>
        reject(new CallbackRequestError("timeout", `Callback did not complete within ${this.timeoutMs} ms`)),
      );
      work.then(resolve, reject);
    });
  }

  clear() {
    clearTimeout(this.timer);
    this.listeners = [];
  }
}

function unbracket(hostname: string): string {
  return hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
}

function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}

/** A cut can split a multi-byte character; drop the partial tail instead of emitting U+FFFD. */
function decodeUtf8Prefix(bytes: Buffer, truncated: boolean): string {
  if (!truncated) return bytes.toString("utf8");
  let end = bytes.length;
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead byte
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    if (needed > back) end = bytes.length - back;
    break;
  }
  return bytes.subarray(0, end).toString("utf8");
}

/** TLS failures Node reports by an OpenSSL or certificate code, named for the customer. */
const TLS_REASONS: Record<string, string> = {
  CERT_HAS_EXPIRED: "the certificate has expired",
  CERT_NOT_YET_VALID: "the certificate is not yet valid",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the certificate is self-signed",
  SELF_SIGNED_CERT_IN_CHAIN: "the certificate chain holds a self-signed certificate",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the certificate chain is incomplete (no intermediate certificate)",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "the certificate's issuer is not trusted",
  ERR_TLS_CERT_ALTNAME_INVALID: "the certificate does not name this host",
  ERR_SSL_WRONG_VERSION_NUMBER: "the server did not answer TLS (an http:// server behind an https:// URL?)",
  ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION: "the server supports no TLS version we accept",
  ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE: "the TLS handshake failed (no common cipher or protocol)",
};

const NETWORK_REASONS: Record<string, string> = {
  EHOSTUNREACH: "Host unreachable",
  ENETUNREACH: "Network unreachable",
  ETIMEDOUT: "Connection timed out at the network level",
  EADDRNOTAVAIL: "Address not available",
};

/**
 * The exact cause of a failed exchange, for the delivery log and `call.error` (issue #30): a TLS
 * error with its reason, an unreachable network, or an answer that is not HTTP. Never the bare
 * "could not complete" that hid which of these it was.
 */
function connectionFailure(err: NodeJS.ErrnoException, isHttps: boolean): string {
  const code = err.code ?? "";
  const tls = TLS_REASONS[code];
  if (tls) return `TLS error: ${tls} (${code})`;
  if (isHttps && /wrong version number/i.test(err.message))
    return `TLS error: ${TLS_REASONS.ERR_SSL_WRONG_VERSION_NUMBER} (${code || "EPROTO"})`;
  if (isHttps && (code.startsWith("ERR_SSL_") || code === "EPROTO" || /certificate|ssl|tls/i.test(err.message)))
    return `TLS error: ${err.message.slice(0, 200)}${code ? ` (${code})` : ""}`;
  const network = NETWORK_REASONS[code];
  if (network) return `${network} (${code})`;
  if (code.startsWith("HPE_")) return `The answer is not valid HTTP (${code})`;
  if (code === "ECONNRESET" || code === "EPIPE")
    return `Connection reset by the server after it began answering (${code})`;
  return `Could not complete the callback request${code ? ` (${code})` : ""}`;
}
