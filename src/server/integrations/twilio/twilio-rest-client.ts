import twilio from "twilio";
import { env } from "../../env";

type RequestOptions<TData> = import("twilio/lib/base/RequestClient").RequestOptions<TData>;

/**
 * The official SDK has no base-URL option; this client moves every request
 * onto TWILIO_API_BASE_URL (tests and the local simulator), keeping path and query.
 */
class BaseUrlRequestClient extends twilio.RequestClient {
  constructor(private readonly baseUrl: string) {
    super();
  }

  override request<TData>(opts: RequestOptions<TData>) {
    const original = new URL(opts.uri);
    return super.request<TData>({ ...opts, uri: `${this.baseUrl}${original.pathname}${original.search}` });
  }
}

/** A Twilio REST client on the customer's own credentials. */
export function twilioRestClient(accountSid: string, authToken: string) {
  const base = env().twilioApiBaseUrl;
  return twilio(accountSid, authToken, base ? { httpClient: new BaseUrlRequestClient(base.replace(/\/+$/, "")) } : {});
}
