import createClient, { type Client } from "openapi-fetch";
import { errorFromResponse, RoutekitConnectionError, RoutekitError } from "../errors.js";
import type { paths } from "../generated/openapi.js";

export type RoutekitOptions = {
  /** An API key (`rtk_…`) or a login token; sent as `Authorization: Bearer …`. */
  apiKey?: string;
  /** The service's address, e.g. https://routekit.example.com (default http://localhost:3000). */
  baseUrl?: string;
  /** Milliseconds before a request is abandoned with a RoutekitConnectionError (default 30,000; 0: never). */
  timeoutMs?: number;
  /** A fetch of your own (a proxy agent, logging, tests); default the global fetch. */
  fetch?: (request: Request) => Promise<Response>;
  /** Headers added to every request. */
  headers?: Record<string, string>;
};

export type RequestOptions = {
  signal?: AbortSignal;
  /** Overrides the client's timeoutMs for this request. */
  timeoutMs?: number;
  headers?: Record<string, string>;
};

export type MutationOptions = RequestOptions & {
  /** Sent as Idempotency-Key: a retry with the same key answers the first request's result (docs/api.md). */
  idempotencyKey?: string;
};

export const DEFAULT_BASE_URL = "http://localhost:3000";

/** The Idempotency-Key header for an operation that declares one. */
export function idempotencyHeader(options: MutationOptions | undefined): { "Idempotency-Key"?: string } {
  return options?.idempotencyKey === undefined ? {} : { "Idempotency-Key": options.idempotencyKey };
}

/** AbortSignal.any, which Node.js has only from 20.3. */
function anySignal(signals: AbortSignal[]): AbortSignal {
  if (signals.length === 1) return signals[0]!;
  const controller = new AbortController();
  for (const signal of signals) {
    if (signal.aborted) {
      controller.abort(signal.reason);
      break;
    }
    signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
  }
  return controller.signal;
}

type Answer<T> = { data?: T; error?: unknown; response: Response };

/** openapi-fetch underneath, and the one place answers become data or typed errors. */
export class Transport {
  readonly client: Client<paths>;
  private readonly timeoutMs: number;

  constructor(options: RoutekitOptions) {
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.client = createClient<paths>({
      baseUrl: (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, ""),
      fetch: options.fetch,
      headers: {
        "user-agent": "routekit-sdk-node/0.1.0",
        ...options.headers,
        ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
      },
    });
  }

  /** The per-request parts every method passes to openapi-fetch: its signal (with the time-out) and headers. */
  init(options: RequestOptions | undefined): { signal?: AbortSignal; headers?: Record<string, string> } {
    const timeoutMs = options?.timeoutMs ?? this.timeoutMs;
    const signals = [options?.signal, timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined].filter(
      (s): s is AbortSignal => s !== undefined,
    );
    return {
      ...(signals.length ? { signal: anySignal(signals) } : {}),
      ...(options?.headers ? { headers: options.headers } : {}),
    };
  }

  async send<T>(request: Promise<Answer<T>>): Promise<T> {
    let answer: Answer<T>;
    try {
      answer = await request;
    } catch (cause) {
      if (cause instanceof RoutekitError) throw cause;
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw new RoutekitConnectionError(`Routekit could not be reached: ${reason}`, { cause });
    }
    if (!answer.response.ok) throw errorFromResponse(answer.response, answer.error);
    return answer.data as T;
  }
}
