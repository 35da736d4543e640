import { twilioRestClient } from "./twilio-rest-client";
import { TWILIO_LIST_MAX_ITEMS, TWILIO_NAME_MAX_CHARS, URL_MAX_CHARS } from "../../../shared/schemas/bounds";

/** What the API shows of Twilio's text: at most its bound (shared/schemas/bounds.ts), whatever Twilio holds. */
const upTo = (max: number, text: string) => (text.length > max ? text.slice(0, max) : text);

/**
 * The calls a Twilio connection makes (docs/decisions.md §10), through the official SDK
 * on the customer's own credentials. Errors are the SDK's; callers map them
 * with toProviderError.
 */
export type TwilioCredentials = { accountSid: string; authToken: string };

export type TwilioIncomingNumber = {
  sid: string;
  phoneNumber: string;
  friendlyName: string;
  voiceUrl: string | null;
  statusCallback: string | null;
};

/** Twilio's largest page: fewest round trips for accounts with many numbers. */
const PAGE_SIZE = 1000;

/** `GET /2010-04-01/Accounts/{Sid}.json`: succeeds only with valid credentials. */
export async function fetchTwilioAccount(creds: TwilioCredentials): Promise<{ friendlyName: string; status: string }> {
  const account = await twilioRestClient(creds.accountSid, creds.authToken)
    .api.v2010.accounts(creds.accountSid)
    .fetch();
  return { friendlyName: upTo(TWILIO_NAME_MAX_CHARS, account.friendlyName), status: account.status };
}

function toNumber(n: {
  sid: string;
  phoneNumber: string;
  friendlyName: string;
  voiceUrl: string | null;
  statusCallback: string | null;
}): TwilioIncomingNumber {
  // Twilio answers a cleared URL as "" or null; both mean "not set".
  return {
    sid: n.sid,
    phoneNumber: n.phoneNumber,
    friendlyName: upTo(TWILIO_NAME_MAX_CHARS, n.friendlyName),
    voiceUrl: n.voiceUrl ? upTo(URL_MAX_CHARS, n.voiceUrl) : null,
    statusCallback: n.statusCallback ? upTo(URL_MAX_CHARS, n.statusCallback) : null,
  };
}

/**
 * The account's subaccounts (Twilio lists the credentials' own account too; it
 * is left out). Their numbers' requests are signed with their own tokens.
 */
export async function listTwilioSubaccounts(
  creds: TwilioCredentials,
): Promise<{ sid: string; friendlyName: string }[]> {
  const accounts = await twilioRestClient(creds.accountSid, creds.authToken).api.v2010.accounts.list({
    pageSize: PAGE_SIZE,
    limit: TWILIO_LIST_MAX_ITEMS + 1, // the credentials' own account is in the list and left out
  });
  return accounts
    .filter((a) => a.sid !== creds.accountSid)
    .slice(0, TWILIO_LIST_MAX_ITEMS)
    .map((a) => ({ sid: a.sid, friendlyName: upTo(TWILIO_NAME_MAX_CHARS, a.friendlyName) }));
}

/** The account's incoming numbers, across Twilio's pages (the SDK follows next_page_uri), the first TWILIO_LIST_MAX_ITEMS. */
export async function listTwilioNumbers(
  creds: TwilioCredentials,
  filter: { phoneNumber?: string } = {},
): Promise<TwilioIncomingNumber[]> {
  const numbers = await twilioRestClient(creds.accountSid, creds.authToken).incomingPhoneNumbers.list({
    pageSize: PAGE_SIZE,
    limit: TWILIO_LIST_MAX_ITEMS,
    ...(filter.phoneNumber && { phoneNumber: filter.phoneNumber }),
  });
  return numbers.map(toNumber);
}

/** The account's incoming number with exactly this E.164 value, or null: the proof of ownership. */
export async function findTwilioNumber(
  creds: TwilioCredentials,
  phoneNumber: string,
): Promise<TwilioIncomingNumber | null> {
  // Twilio's PhoneNumber filter matches partially; only an exact match proves ownership.
  return (await listTwilioNumbers(creds, { phoneNumber })).find((n) => n.phoneNumber === phoneNumber) ?? null;
}

export async function fetchTwilioNumber(creds: TwilioCredentials, sid: string): Promise<TwilioIncomingNumber> {
  return toNumber(await twilioRestClient(creds.accountSid, creds.authToken).incomingPhoneNumbers(sid).fetch());
}

/**
 * Sets (a URL) or clears ("") the voice URL and status callback, both POST.
 * Omitted fields are left as they are at Twilio.
 */
export async function setTwilioNumberUrls(
  creds: TwilioCredentials,
  sid: string,
  urls: { voiceUrl?: string; statusCallback?: string },
): Promise<TwilioIncomingNumber> {
  const updated = await twilioRestClient(creds.accountSid, creds.authToken)
    .incomingPhoneNumbers(sid)
    .update({
      ...(urls.voiceUrl !== undefined && { voiceUrl: urls.voiceUrl, voiceMethod: "POST" }),
      ...(urls.statusCallback !== undefined && { statusCallback: urls.statusCallback, statusCallbackMethod: "POST" }),
    });
  return toNumber(updated);
}
