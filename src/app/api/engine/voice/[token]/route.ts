import { handleEngineRequest } from "@/server/engine/handle-engine-request";
import { AppError } from "@/server/errors/app-error";
import { readBody } from "@/server/http/body";
import { errorResponse } from "@/server/http/error-response";
import { REQUEST_ID_HEADER, requestIdFrom } from "@/server/http/request-id";

// Twilio's side of the engine: form-encoded requests in, TwiML out.
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export async function POST(req: Request, ctx: { params: Promise<{ token: string }> }): Promise<Response> {
  const requestId = requestIdFrom(req.headers.get(REQUEST_ID_HEADER));
  try {
    const { token } = await ctx.params;
    const url = new URL(req.url);
    const params = Object.fromEntries(new URLSearchParams(await readBody(req)));
    const twiml = await handleEngineRequest({
      routingToken: token,
      pathAndQuery: url.pathname + url.search,
      callId: url.searchParams.get("call"),
      params,
      signature: req.headers.get("x-twilio-signature"),
    });
    return new Response(twiml, { status: 200, headers: { "content-type": "text/xml; charset=utf-8", [REQUEST_ID_HEADER]: requestId } });
  } catch (err) {
    return errorResponse(err, req, requestId);
  }
}

function methodNotAllowed(req: Request): Response {
  return errorResponse(new AppError("METHOD_NOT_ALLOWED", "The engine takes Twilio's POST requests; set the voice URL's method to HTTP POST."), req, requestIdFrom(req.headers.get(REQUEST_ID_HEADER)));
}
export const GET = methodNotAllowed;
export const PUT = methodNotAllowed;
export const PATCH = methodNotAllowed;
export const DELETE = methodNotAllowed;
