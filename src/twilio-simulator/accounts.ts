/**
 * The simulator's Twilio accounts and their incoming phone numbers: the slice of Twilio's REST API a
 * Twilio connection uses (docs/decisions.md §10): fetch the account (checks credentials), list its numbers
 * page by page, and set a number's voice URL and status callback. Kept apart from call playback so
 * each part of the fake stays small.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

type TwilioFault = { status: number; code: number; message: string };

/** What the simulator's HTTP layer lends this module (authentication, body, JSON, Twilio-style errors). */
export type RestTools = {
  /** Checks Basic auth against the path's AccountSid; returns the auth token or throws a 20003 fault. */
  authenticate(req: IncomingMessage, pathAccountSid: string): string;
  fail(fault: TwilioFault): Error;
  readBody(req: IncomingMessage): Promise<string>;
  sendJson(res: ServerResponse, status: number, body: unknown): void;
};

export type SimulatorAccount = {
  sid: string;
  authToken: string;
  friendlyName: string;
  status: "active" | "suspended" | "closed";
  /** Set for a subaccount: the account that owns it. */
  parentSid: string | null;
  createdAt: Date;
};

export type IncomingNumber = {
  sid: string;
  accountSid: string;
  phoneNumber: string;
  friendlyName: string;
  voiceUrl: string | null;
  voiceMethod: string;
  statusCallback: string | null;
  statusCallbackMethod: string;
  createdAt: Date;
  updatedAt: Date;
};

const API_VERSION = "2010-04-01";
const ACCOUNTS_PATH = /^\/2010-04-01\/Accounts\.json$/;
const ACCOUNT_PATH = /^\/2010-04-01\/Accounts\/([^/]+)\.json$/;
const NUMBERS_PATH = /^\/2010-04-01\/Accounts\/([^/]+)\/IncomingPhoneNumbers\.json$/;
const NUMBER_PATH = /^\/2010-04-01\/Accounts\/([^/]+)\/IncomingPhoneNumbers\/([^/]+)\.json$/;
import { E164 } from "../shared/schemas/e164";
/** Twilio's default and maximum page sizes for list resources. */
const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 1000;

function newAccountSid(): string {
  return `AC${randomBytes(16).toString("hex")}`;
}

function newPhoneNumberSid(): string {
  return `PN${randomBytes(16).toString("hex")}`;
}

function rfc2822(date: Date): string {
  return date.toUTCString().replace(/GMT$/, "+0000");
}

function formatted(number: string): string {
  const m = /^\+1(\d{3})(\d{3})(\d{4})$/.exec(number);
  return m ? `(${m[1]}) ${m[2]}-${m[3]}` : number;
}

function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
}

export class SimulatorAccounts {
  private readonly accounts = new Map<string, SimulatorAccount>();
  /** In creation order, as Twilio lists them. */
  private readonly numbers = new Map<string, IncomingNumber>();
  /**
   * Pages never hold more than this, whatever PageSize asks (Twilio's own cap is 1000). Lower it to
   * make a client that asks for big pages still have to follow next_page_uri.
   */
  maxPageSize = MAX_PAGE_SIZE;

  constructor(initial: Record<string, string> = {}) {
    for (const [sid, authToken] of Object.entries(initial)) this.addAccount({ sid, authToken });
  }

  addAccount(
    opts: {
      sid?: string;
      authToken?: string;
      friendlyName?: string;
      status?: SimulatorAccount["status"];
      parentSid?: string;
    } = {},
  ): SimulatorAccount {
    const sid = opts.sid ?? newAccountSid();
    if (this.accounts.has(sid)) throw new Error(`account ${sid} exists already`);
    if (opts.parentSid && !this.accounts.has(opts.parentSid)) throw new Error(`no parent account ${opts.parentSid}`);
    const account: SimulatorAccount = {
      sid,
      authToken: opts.authToken ?? randomBytes(16).toString("hex"),
      friendlyName: opts.friendlyName ?? `Simulated account ${sid.slice(-6)}`,
      status: opts.status ?? "active",
      parentSid: opts.parentSid ?? null,
      createdAt: new Date(),
    };
    this.accounts.set(sid, account);
    return account;
  }

  account(sid: string): SimulatorAccount | undefined {
    return this.accounts.get(sid);
  }

  /** The auth token Twilio would sign this account's requests with. */
  tokenOf(sid: string): string | undefined {
    return this.accounts.get(sid)?.authToken;
  }

  /** A number belongs to one Twilio account at a time, as at Twilio. */
  addIncomingNumber(
    accountSid: string,
    phoneNumber: string,
    opts: { friendlyName?: string; voiceUrl?: string; statusCallback?: string } = {},
  ): IncomingNumber {
    if (!this.accounts.has(accountSid)) throw new Error(`no account ${accountSid}`);
    if (!E164.test(phoneNumber)) throw new Error(`not E.164: ${phoneNumber}`);
    if (this.byPhoneNumber(phoneNumber)) throw new Error(`${phoneNumber} belongs to an account already`);
    const now = new Date();
    const number: IncomingNumber = {
      sid: newPhoneNumberSid(),
      accountSid,
      phoneNumber,
      friendlyName: opts.friendlyName ?? formatted(phoneNumber),
      voiceUrl: opts.voiceUrl ?? null,
      voiceMethod: "POST",
      statusCallback: opts.statusCallback ?? null,
      statusCallbackMethod: "POST",
      createdAt: now,
      updatedAt: now,
    };
    this.numbers.set(number.sid, number);
    return number;
  }

  byPhoneNumber(phoneNumber: string): IncomingNumber | undefined {
    for (const n of this.numbers.values()) if (n.phoneNumber === phoneNumber) return n;
    return undefined;
  }

  numbersOf(accountSid: string): IncomingNumber[] {
    return [...this.numbers.values()].filter((n) => n.accountSid === accountSid);
  }

  /** Serves the account and number routes; false when the path is none of them. */
  async handle(req: IncomingMessage, res: ServerResponse, url: URL, tools: RestTools): Promise<boolean> {
    const path = url.pathname;
    let m: RegExpExecArray | null;
    if (ACCOUNTS_PATH.test(path)) {
      // The credentials' own account and its subaccounts, as Twilio lists them.
      const user =
        Buffer.from(/^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1] ?? "", "base64")
          .toString("utf8")
          .split(":")[0] ?? "";
      this.authorize(req, user, tools);
      if (req.method !== "GET")
        throw tools.fail({
          status: 405,
          code: 20004,
          message: "Method not allowed (this simulator does not create subaccounts)",
        });
      const visible = [...this.accounts.values()].filter((a) => a.sid === user || a.parentSid === user);
      tools.sendJson(res, 200, {
        accounts: visible.map((a) => this.accountResource(a)),
        start: 0,
        end: Math.max(visible.length - 1, 0),
        page: 0,
        page_size: MAX_PAGE_SIZE,
        uri: `/${API_VERSION}/Accounts.json?PageSize=${MAX_PAGE_SIZE}&Page=0`,
        first_page_uri: `/${API_VERSION}/Accounts.json?PageSize=${MAX_PAGE_SIZE}&Page=0`,
        next_page_uri: null,
        previous_page_uri: null,
      });
      return true;
    }
    if ((m = ACCOUNT_PATH.exec(path))) {
      const sid = decodeURIComponent(m[1]!);
      this.authorize(req, sid, tools);
      if (req.method !== "GET") throw tools.fail({ status: 405, code: 20004, message: "Method not allowed" });
      tools.sendJson(res, 200, this.accountResource(this.accounts.get(sid) ?? this.implicitAccount(sid)));
      return true;
    }
    if ((m = NUMBERS_PATH.exec(path))) {
      const sid = decodeURIComponent(m[1]!);
      this.authorize(req, sid, tools);
      if (req.method !== "GET")
        throw tools.fail({
          status: 405,
          code: 20004,
          message: "Method not allowed (this simulator does not buy numbers)",
        });
      tools.sendJson(res, 200, this.numbersPage(sid, url.searchParams, tools));
      return true;
    }
    if ((m = NUMBER_PATH.exec(path))) {
      const sid = decodeURIComponent(m[1]!);
      this.authorize(req, sid, tools);
      const number = this.numbers.get(decodeURIComponent(m[2]!));
      if (!number || number.accountSid !== sid)
        throw tools.fail({ status: 404, code: 20404, message: `The requested resource ${path} was not found` });
      if (req.method === "POST") this.update(number, new URLSearchParams(await tools.readBody(req)), tools);
      else if (req.method !== "GET") throw tools.fail({ status: 405, code: 20004, message: "Method not allowed" });
      tools.sendJson(res, 200, this.numberResource(number));
      return true;
    }
    return false;
  }

  /** A suspended or closed account's credentials are refused, as Twilio does. */
  private authorize(req: IncomingMessage, sid: string, tools: RestTools): void {
    tools.authenticate(req, sid);
    const account = this.accounts.get(sid);
    if (account && account.status !== "active") throw tools.fail({ status: 401, code: 20003, message: "Authenticate" });
  }

  /** With acceptAnyCredentials an unknown account is still answered (local development only). */
  private implicitAccount(sid: string): SimulatorAccount {
    return {
      sid,
      authToken: "",
      friendlyName: `Simulated account ${sid.slice(-6)}`,
      status: "active",
      parentSid: null,
      createdAt: new Date(0),
    };
  }

  private update(number: IncomingNumber, form: URLSearchParams, tools: RestTools): void {
    const url = (name: "VoiceUrl" | "StatusCallback") => {
      const v = form.get(name);
      if (v === null) return undefined;
      // An empty value clears the field.
      if (v !== "" && !isHttpUrl(v))
        throw tools.fail({ status: 400, code: 21502, message: `${name} is not a valid URL: ${v}` });
      return v === "" ? null : v;
    };
    // twilio-oai (IncomingPhoneNumbers/{Sid}.json, POST): both methods are the enum `GET` | `POST`, as
    // Routekit sends them; another spelling is refused, not guessed at.
    const method = (name: "VoiceMethod" | "StatusCallbackMethod") => {
      const v = form.get(name);
      if (v === null || v === "") return undefined;
      if (v !== "GET" && v !== "POST")
        throw tools.fail({ status: 400, code: 21503, message: `${name} must be GET or POST` });
      return v;
    };
    const voiceUrl = url("VoiceUrl");
    const statusCallback = url("StatusCallback");
    const voiceMethod = method("VoiceMethod");
    const statusCallbackMethod = method("StatusCallbackMethod");
    const friendlyName = form.get("FriendlyName");
    if (voiceUrl !== undefined) number.voiceUrl = voiceUrl;
    if (statusCallback !== undefined) number.statusCallback = statusCallback;
    if (voiceMethod) number.voiceMethod = voiceMethod;
    if (statusCallbackMethod) number.statusCallbackMethod = statusCallbackMethod;
    if (friendlyName) number.friendlyName = friendlyName;
    number.updatedAt = new Date();
  }

  private numbersPage(accountSid: string, query: URLSearchParams, tools: RestTools) {
    let pageSize = Number(query.get("PageSize") ?? DEFAULT_PAGE_SIZE);
    const page = Number(query.get("Page") ?? 0);
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
      throw tools.fail({ status: 400, code: 20001, message: `PageSize must be between 1 and ${MAX_PAGE_SIZE}` });
    }
    if (!Number.isInteger(page) || page < 0)
      throw tools.fail({ status: 400, code: 20001, message: "Page must be a whole number" });
    const filter = query.get("PhoneNumber");
    const all = this.numbersOf(accountSid).filter((n) => !filter || n.phoneNumber.includes(filter));
    pageSize = Math.min(pageSize, this.maxPageSize);
    const start = page * pageSize;
    const slice = all.slice(start, start + pageSize);
    const base = `/${API_VERSION}/Accounts/${accountSid}/IncomingPhoneNumbers.json`;
    const uri = (p: number) => {
      const q = new URLSearchParams({ PageSize: String(pageSize), Page: String(p) });
      if (filter) q.set("PhoneNumber", filter);
      // Twilio adds a PageToken after the first page; the simulator pages by number alone but keeps the shape.
      if (p > 0) q.set("PageToken", `PA${all[p * pageSize - 1]?.sid ?? ""}`);
      return `${base}?${q.toString()}`;
    };
    const hasNext = start + pageSize < all.length;
    return {
      incoming_phone_numbers: slice.map((n) => this.numberResource(n)),
      start,
      end: start + Math.max(slice.length - 1, 0),
      page,
      page_size: pageSize,
      uri: uri(page),
      first_page_uri: uri(0),
      next_page_uri: hasNext ? uri(page + 1) : null,
      previous_page_uri: page > 0 ? uri(page - 1) : null,
    };
  }

  private accountResource(a: SimulatorAccount) {
    const uri = `/${API_VERSION}/Accounts/${a.sid}`;
    return {
      sid: a.sid,
      owner_account_sid: a.parentSid ?? a.sid,
      friendly_name: a.friendlyName,
      status: a.status,
      type: "Full",
      // Twilio returns the token to its owner; Routekit must never pass it on.
      auth_token: a.authToken,
      date_created: rfc2822(a.createdAt),
      date_updated: rfc2822(a.createdAt),
      uri: `${uri}.json`,
      subresource_uris: { incoming_phone_numbers: `${uri}/IncomingPhoneNumbers.json`, calls: `${uri}/Calls.json` },
    };
  }

  private numberResource(n: IncomingNumber) {
    return {
      sid: n.sid,
      account_sid: n.accountSid,
      phone_number: n.phoneNumber,
      friendly_name: n.friendlyName,
      voice_url: n.voiceUrl,
      voice_method: n.voiceMethod,
      voice_fallback_url: null,
      voice_fallback_method: "POST",
      voice_caller_id_lookup: false,
      voice_application_sid: null,
      status_callback: n.statusCallback,
      status_callback_method: n.statusCallbackMethod,
      sms_url: null,
      sms_method: "POST",
      capabilities: { voice: true, sms: true, mms: true, fax: false },
      status: "in-use",
      origin: "twilio",
      beta: false,
      api_version: API_VERSION,
      date_created: rfc2822(n.createdAt),
      date_updated: rfc2822(n.updatedAt),
      uri: `/${API_VERSION}/Accounts/${n.accountSid}/IncomingPhoneNumbers/${n.sid}.json`,
    };
  }
}
