/**
 * Twilio's own record of calls, as the simulator keeps it: the calls it places
 * (Calls.create) and plays (simulateInboundCall), whatever the service made of
 * their webhooks, plus records a test adds for calls that never reached the
 * service. Served as `GET …/Calls.json` (filters, paging, newest first) and
 * `GET …/Calls/{CallSid}.json`, the resources reconciliation reads.
 */
import { randomBytes } from "node:crypto";
import { TERMINAL_CALL_STATUSES, type TwilioCallRecordStatus } from "../shared/schemas/enums";

export type CallRecordStatus = TwilioCallRecordStatus;

/** A final status: the call is over (Twilio's call status values). */
export function isEndedStatus(status: string): boolean {
  return (TERMINAL_CALL_STATUSES as readonly string[]).includes(status);
}

export type CallRecord = {
  sid: string;
  accountSid: string;
  from: string;
  to: string;
  direction: "inbound" | "outbound-api" | "outbound-dial";
  status: CallRecordStatus;
  /** Seconds; set once the call ended. */
  duration: number | null;
  startTime: Date | null;
  endTime: Date | null;
  answeredBy: string | null;
  dateCreated: Date;
};

export type NewCallRecord = Partial<Omit<CallRecord, "accountSid" | "from" | "to">> &
  Pick<CallRecord, "accountSid" | "from" | "to">;

const API_VERSION = "2010-04-01";
const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 1000;

export class CallRecordStore {
  private readonly records = new Map<string, CallRecord>();

  /**
   * Adds (or replaces) a record. Defaults describe a call that just completed:
   * inbound, `completed`, 0 s, started and ended now.
   */
  add(record: NewCallRecord): CallRecord {
    const now = new Date();
    const status = record.status ?? "completed";
    const ended = isEndedStatus(status);
    const full: CallRecord = {
      sid: record.sid ?? `CA${randomBytes(16).toString("hex")}`,
      direction: "inbound",
      duration: ended ? 0 : null,
      startTime: status === "queued" ? null : now,
      endTime: ended ? now : null,
      answeredBy: null,
      dateCreated: now,
      ...definedOnly(record),
      accountSid: record.accountSid,
      from: record.from,
      to: record.to,
      status,
    };
    this.records.set(full.sid, full);
    return full;
  }

  /** The call moved on (the simulator playing it); unknown SIDs are ignored. */
  update(sid: string, patch: Partial<Omit<CallRecord, "sid" | "accountSid">>): void {
    const record = this.records.get(sid);
    if (record) Object.assign(record, definedOnly(patch));
  }

  get(accountSid: string, sid: string): CallRecord | undefined {
    const record = this.records.get(sid);
    return record?.accountSid === accountSid ? record : undefined;
  }

  all(accountSid: string): CallRecord[] {
    return [...this.records.values()].filter((r) => r.accountSid === accountSid);
  }
}

/** The store simulateInboundCall and simulators without a store of their own write to. */
export const sharedCallRecords = new CallRecordStore();

const RECORDS_PATH = /^\/2010-04-01\/Accounts\/([^/]+)\/Calls(?:\/([^/]+))?\.json$/;

/** `{ accountSid, callSid }` when `pathname` is a call record resource (callSid null for the list). */
export function matchCallRecordsPath(pathname: string): { accountSid: string; callSid: string | null } | null {
  const match = RECORDS_PATH.exec(pathname);
  if (!match?.[1]) return null;
  try {
    return { accountSid: decodeURIComponent(match[1]), callSid: match[2] ? decodeURIComponent(match[2]) : null };
  } catch {
    return null;
  }
}

export type RecordsAnswer = { status: number; body: unknown };

/** Answers a GET of a call record or the call list, as Twilio's REST API would. */
export function serveCallRecords(
  store: CallRecordStore,
  target: { accountSid: string; callSid: string | null },
  query: URLSearchParams,
): RecordsAnswer {
  if (target.callSid !== null) {
    const record = store.get(target.accountSid, target.callSid);
    if (!record) return notFound(`/${API_VERSION}/Accounts/${target.accountSid}/Calls/${target.callSid}.json`);
    return { status: 200, body: callRecordResource(record) };
  }

  const filters = parseFilters(query);
  if ("error" in filters)
    return {
      status: 400,
      body: { code: 20001, message: filters.error, more_info: "https://www.twilio.com/docs/errors/20001", status: 400 },
    };
  const matching = store
    .all(target.accountSid)
    .filter((r) => filters.keep(r))
    .sort((a, b) => time(b) - time(a) || (a.sid < b.sid ? -1 : 1));

  const pageSize = clampInt(query.get("PageSize"), DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE);
  const page = clampInt(query.get("Page"), 0, 0, Number.MAX_SAFE_INTEGER);
  const slice = matching.slice(page * pageSize, (page + 1) * pageSize);
  const base = `/${API_VERSION}/Accounts/${target.accountSid}/Calls.json`;
  const pageUri = (p: number) => {
    const q = new URLSearchParams(filters.echo);
    q.set("PageSize", String(pageSize));
    q.set("Page", String(p));
    return `${base}?${q.toString()}`;
  };
  const hasNext = (page + 1) * pageSize < matching.length;
  return {
    status: 200,
    body: {
      calls: slice.map(callRecordResource),
      end: page * pageSize + Math.max(0, slice.length - 1),
      first_page_uri: pageUri(0),
      next_page_uri: hasNext ? pageUri(page + 1) : null,
      page,
      page_size: pageSize,
      previous_page_uri: page > 0 ? pageUri(page - 1) : null,
      start: page * pageSize,
      uri: pageUri(page),
    },
  };
}

type Filters = { keep(r: CallRecord): boolean; echo: [string, string][] } | { error: string };

function parseFilters(query: URLSearchParams): Filters {
  const tests: ((r: CallRecord) => boolean)[] = [];
  const echo: [string, string][] = [];
  for (const [name, value] of query) {
    const keep = (test: (r: CallRecord) => boolean) => {
      tests.push(test);
      echo.push([name, value]);
    };
    if (name === "To") keep((r) => r.to === value);
    else if (name === "From") keep((r) => r.from === value);
    else if (name === "Status") keep((r) => r.status === value);
    else if (name.startsWith("StartTime")) {
      const bound = parseTwilioDate(value);
      if (!bound) return { error: `Invalid ${name}: ${value}` };
      const dayOnly = /^\d{4}-\d{2}-\d{2}$/.test(value);
      const start = (r: CallRecord) => r.startTime?.getTime();
      const op = name.slice("StartTime".length);
      // twilio-oai (Calls.json, GET): `StartTime>` is "started on or after this date", not strictly after:
      // Twilio's own `StartTime>=2009-07-06` is that parameter with its value. `>=` is kept for callers that
      // encode the whole name.
      if (op === ">" || op === ">=") keep((r) => (start(r) ?? -Infinity) >= bound.getTime());
      else if (op === "<") keep((r) => (start(r) ?? Infinity) < bound.getTime());
      else if (op === "<=") keep((r) => (start(r) ?? Infinity) <= bound.getTime());
      else if (op === "")
        keep((r) => (dayOnly ? r.startTime?.toISOString().slice(0, 10) === value : start(r) === bound.getTime()));
    }
  }
  return { keep: (r) => tests.every((t) => t(r)), echo };
}

/** `YYYY-MM-DD` (midnight UTC) or an ISO 8601 date-time, as Twilio's date filters take them. */
function parseTwilioDate(value: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(value)) return null;
  const d = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** RFC 2822 with a numeric zone, as Twilio writes dates. */
function rfc2822(date: Date | null): string | null {
  return date ? date.toUTCString().replace(/GMT$/, "+0000") : null;
}

/** Twilio's own display format for North American numbers; others are shown as given. */
function formatted(number: string): string {
  const m = /^\+1(\d{3})(\d{3})(\d{4})$/.exec(number);
  return m ? `(${m[1]}) ${m[2]}-${m[3]}` : number;
}

/**
 * The Call resource as Twilio serves it (twilio-oai `api.v2010.account.call`): the one shape for
 * `Calls.create`'s answer, a call update's answer, `GET …/Calls/{Sid}.json` and `GET …/Calls.json`, so
 * whatever Routekit reads of a call is what the call's one state says.
 */
export function callRecordResource(r: CallRecord) {
  const uri = `/${API_VERSION}/Accounts/${r.accountSid}/Calls/${r.sid}`;
  return {
    sid: r.sid,
    account_sid: r.accountSid,
    annotation: null,
    answered_by: r.answeredBy,
    api_version: API_VERSION,
    caller_name: null,
    date_created: rfc2822(r.dateCreated),
    date_updated: rfc2822(r.endTime ?? r.startTime ?? r.dateCreated),
    direction: r.direction,
    // Twilio sends the duration as a string, and only once the call ended.
    duration: r.duration === null ? null : String(r.duration),
    end_time: rfc2822(r.endTime),
    forwarded_from: null,
    from: r.from,
    from_formatted: formatted(r.from),
    group_sid: null,
    parent_call_sid: null,
    phone_number_sid: null,
    price: null,
    price_unit: "USD",
    queue_time: "0",
    start_time: rfc2822(r.startTime),
    status: r.status,
    subresource_uris: {
      notifications: `${uri}/Notifications.json`,
      recordings: `${uri}/Recordings.json`,
      payments: `${uri}/Payments.json`,
      events: `${uri}/Events.json`,
      siprec: `${uri}/Siprec.json`,
      streams: `${uri}/Streams.json`,
      transcriptions: `${uri}/Transcriptions.json`,
      user_defined_message_subscriptions: `${uri}/UserDefinedMessageSubscriptions.json`,
      user_defined_messages: `${uri}/UserDefinedMessages.json`,
    },
    to: r.to,
    to_formatted: formatted(r.to),
    trunk_sid: null,
    uri: `${uri}.json`,
  };
}

function notFound(path: string): RecordsAnswer {
  return {
    status: 404,
    body: {
      code: 20404,
      message: `The requested resource ${path} was not found`,
      more_info: "https://www.twilio.com/docs/errors/20404",
      status: 404,
    },
  };
}

function time(r: CallRecord): number {
  return (r.startTime ?? r.dateCreated).getTime();
}

function clampInt(raw: string | null, fallback: number, min: number, max: number): number {
  if (raw === null || !/^\d+$/.test(raw)) return fallback;
  return Math.min(max, Math.max(min, Number(raw)));
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
