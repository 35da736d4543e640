import type { IncomingMessage, ServerResponse } from "node:http";
import { AppError } from "../errors/app-error";
import { readNodeBody } from "../http/body";
import { checkedBodyOf } from "../http/input-boundary";
import { writeErrorResponse } from "../http/error-response";
import { REQUEST_ID_HEADER } from "../http/request-id";
import { isStatusCallback, isTerminal } from "../services/calls/call-status";
import { parseEngineParams, validateEngineParams } from "./engine-params";
import { handleFinalStatus, journalFinalStatus } from "./final-status-journal";
import { databaseAvailability, type DatabaseAvailability } from "../db/database-availability";
import { isTransientError } from "../errors/to-error-response";
import { logger } from "../logger";
import { answerDuringOutage, answerVoiceRequest } from "./answer-voice-request";
import { EMPTY_TWIML, handleEngineRequest, type EngineRequest } from "./handle-engine-request";
import { handleControlRequest } from "./control/control-request";
import { withSpan } from "../tracing/tracing";
import { ENGINE_PATH_PREFIX } from "../../shared/engine-path";

export { ENGINE_PATH_PREFIX };

const ENGINE_PATH = /^\/api\/engine\/voice\/([^/?#]+)\/?(?:\?.*)?$/;

/** The routing token when `url` is an engine URL (docs/decisions.md §7), else null. */
export function engineToken(url: string | undefined): string | null {
  if (!url?.startsWith(ENGINE_PATH_PREFIX)) return null;
  const match = ENGINE_PATH.exec(url);
  if (!match) return null;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return null; // bad percent-encoding: no account has such a token
  }
}

// Per module graph: a reference to the process's one availability object (remember), looked up once.
let database: DatabaseAvailability | undefined;

/**
 * The TwiML answer, with its length: Twilio reads a plain body, not a chunked one, and headers and
 * body leave in one write. (Without it, writeHead before end made Node frame the body in chunks.
 * The server's own CPU is the same either way, measured in docs/performance.md.)
 */
function answerTwiml(res: ServerResponse, requestId: string, twiml: string): void {
  res.writeHead(200, {
    "content-type": "text/xml; charset=utf-8",
    "content-length": Buffer.byteLength(twiml),
    [REQUEST_ID_HEADER]: requestId,
  });
  res.end(twiml);
}

/**
 * Twilio's side of the engine, served straight from the HTTP server rather
 * than through Next.js: form-encoded requests in, TwiML out, errors in the
 * usual envelope. Our own part of a call's 15 s stays a few milliseconds.
 */
export async function serveEngine(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
  try {
    if (req.method !== "POST") {
      throw new AppError(
        "METHOD_NOT_ALLOWED",
        "The engine takes Twilio's POST requests; set the voice URL's method to HTTP POST.",
      );
    }
    const pathAndQuery = req.url ?? "/";
    const token = engineToken(pathAndQuery);
    if (!token) throw new AppError("NOT_FOUND", "Unknown engine URL.");
    const query = pathAndQuery.includes("?")
      ? new URLSearchParams(pathAndQuery.slice(pathAndQuery.indexOf("?") + 1))
      : null;
    const params = parseEngineParams(checkedBodyOf(req)?.toString("utf8") ?? (await readNodeBody(req)));
    const signature = req.headers["x-twilio-signature"];
    // Twilio's requests about a live-call command (engine/control/): they carry their own parameters.
    const control = query?.get("control");
    if (control) {
      const twiml = await withSpan("engine control request", { attributes: { "routekit.control": control } }, () =>
        handleControlRequest({
          routingToken: token,
          pathAndQuery,
          kind: control,
          commandId: query?.get("command") ?? null,
          params,
          signature: typeof signature === "string" ? signature : null,
        }),
      );
      answerTwiml(res, requestId, twiml);
      return;
    }
    validateEngineParams(params);
    const request: EngineRequest = {
      routingToken: token,
      // Twilio signs the URL exactly as it was given, so the path is taken as received.
      pathAndQuery,
      callId: query?.get("call") ?? null,
      params,
      signature: typeof signature === "string" ? signature : null,
    };
    // Twilio never retries a final status: it is applied or journaled, never lost to an outage.
    // A voice request never hears a 503 either (Twilio would play its "application error"): while the
    // database is down, answer-voice-request.ts answers it. Before the database was ever reached (a
    // degraded start), nothing can be looked up: final statuses go straight to the journal, voice
    // requests to the outage path.
    const up = (database ??= databaseAvailability()).up;
    const final = isTerminal(params.CallStatus!);
    const progress = !final && isStatusCallback(params);
    // Tracing on: the engine's own span, under the request's server span (main.ts); its statements and the backend's call under it.
    const twiml = await withSpan(
      final ? "engine final status" : "engine request",
      { attributes: { "routekit.call.status": params.CallStatus!, "routekit.engine.degraded": !up } },
      async () =>
        final
          ? await (up ? handleFinalStatus(request) : journalFinalStatus({ ...request, receivedAt: new Date() }))
          : progress
            ? await (up ? handleProgress(request) : EMPTY_TWIML)
            : up
              ? await answerVoiceRequest(request)
              : await answerDuringOutage({ ...request, receivedAt: new Date() }, "not connected yet"),
    );
    answerTwiml(res, requestId, twiml);
  } catch (err) {
    writeErrorResponse(err, req, res, requestId);
  }
}

/**
 * A status callback short of the end (ringing, in progress): applied, or, while the database is down,
 * dropped with a 200. It only moves a call's progress forward, the final status (journaled) closes the
 * call whatever came before, and Twilio would not retry a 503.
 */
async function handleProgress(request: EngineRequest): Promise<string> {
  try {
    return await handleEngineRequest(request);
  } catch (err) {
    if (!isTransientError(err)) throw err;
    logger().warn(
      { callSid: request.params.CallSid, status: request.params.CallStatus },
      "database unavailable: a progress status callback was not applied",
    );
    return EMPTY_TWIML;
  }
}
