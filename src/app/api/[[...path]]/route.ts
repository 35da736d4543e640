import { handleRestRequest } from "@/server/rest/handle-rest-request";

// Every /api/* path not claimed by a more specific route lands here, so unknown
// paths and wrong methods get the JSON envelope too.
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const GET = handleRestRequest;
export const HEAD = handleRestRequest;
export const POST = handleRestRequest;
export const PUT = handleRestRequest;
export const PATCH = handleRestRequest;
export const DELETE = handleRestRequest;
export const OPTIONS = handleRestRequest;
