/**
 * What a hostile client sends, as data: values for path segments, query
 * parameters and JSON fields, whole bodies, content types and credentials.
 * A seeded generator picks from them, so a failing run can be replayed.
 */

/** mulberry32: small, seeded, good enough to pick cases. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Pick = <T>(items: readonly T[]) => T;
export const picker =
  (random: () => number): Pick =>
  (items) =>
    items[Math.floor(random() * items.length)]!;

/** Raw (already percent-encoded or deliberately malformed) path segments. */
export const HOSTILE_SEGMENTS = [
  "%00",
  "abc%00",
  "%",
  "%zz",
  "%E0%A4%A",
  "%FF",
  "%C0%AF",
  "..%2F..%2Fetc%2Fpasswd",
  "%2e%2e",
  "__proto__",
  "constructor",
  "x".repeat(4000),
  "%F0%9F%93%9E",
  "%u0000",
  "%5Cu0000",
  "null",
  "-1",
  "99999999999999999999999",
  "1e309",
  "%20",
  "a%2Fb",
  "%25",
  `cm${"0".repeat(23)}`,
  "'%20OR%201=1--",
  "%3Cscript%3E",
];

/** Raw query values. */
/** A keyset cursor as the API encodes one (`<ISO time>|<id>`, base64url), for any time: the forged ones PostgreSQL cannot store. */
export const forgedCursor = (time: string) => Buffer.from(`${time}|cabc`, "utf8").toString("base64url");

/** Times a Date or the ISO format admits and PostgreSQL's timestamptz does not (docs/decisions.md §3: a 400, not a 500). */
export const OUT_OF_RANGE_TIMES = [
  "0000-01-01T00:00:00Z",
  "-271821-04-20T00:00:00.000Z",
  "-004714-11-24T00:00:00.000Z",
  "+275760-09-13T00:00:00.000Z",
  "9999-12-31T23:59:59-23:59",
  "1969-12-31T23:59:59Z",
];

export const HOSTILE_QUERY_VALUES = [
  "%00",
  "a%00b",
  "%",
  "%zz",
  "%FF",
  "-1",
  "0",
  "1e309",
  "99999999999999999999",
  "9007199254740993",
  "NaN",
  "Infinity",
  "1.5",
  "0x10",
  "true",
  "null",
  "[]",
  "%7B%7D",
  "x".repeat(3000),
  "%5Cu0000",
  "__proto__",
  "%F0%9F%93%9E",
  "+",
  "%2B%2B",
  "2147483648",
  "-2147483649",
  ...OUT_OF_RANGE_TIMES.map(encodeURIComponent),
  ...["-271821-04-20T00:00:00.000Z", "-004714-11-24T00:00:00.000Z", "0000-01-01T00:00:00.000Z"].map(forgedCursor),
];

/** JSON values of every type and edge, for any field. */
export const HOSTILE_JSON_VALUES: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 53 + 2,
  1e308,
  -1e308,
  Number.MIN_VALUE,
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "x".repeat(5000),
  "x".repeat(60_000),
  "\ud800",
  "😀".repeat(100),
  "<script>alert(1)</script>",
  "' OR 1=1 --",
  "https://127.0.0.1/x",
  "http://[::1]/",
  "javascript:alert(1)",
  "file:///etc/passwd",
  "+14155550123",
  "+1415555012\u0000",
  [],
  [1, 2, 3],
  {},
  { __proto__: { admin: true } },
  { constructor: { prototype: { polluted: true } } },
  [[[[[[]]]]]],
  "2026-13-45T99:99:99Z",
  "9999999999999999999999",
  "%00",
  "\\u0000",
];

/** Keys that have hurt JavaScript servers before. */
export const HOSTILE_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "",
  "\u0000",
  "a.b",
  "$where",
  "x".repeat(1000),
];

/** Whole request bodies as raw text, whatever the route. */
export function hostileRawBodies(): string[] {
  const deepArray = "[".repeat(5000) + "]".repeat(5000);
  const deepObject = `${'{"a":'.repeat(3000)}1${"}".repeat(3000)}`;
  return [
    "",
    " ",
    "{",
    "}",
    '{"a":',
    "[1,2",
    "null",
    "true",
    "0",
    "-0",
    "1e999",
    '"str"',
    "[]",
    "[{}]",
    deepArray,
    deepObject,
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"x":1}}}',
    '{"a":1,"a":2}',
    '{"a":"\\u0000"}',
    '{"\\u0000":1}',
    '{"a":"\\ud800"}',
    "\u0000",
    '{"a":"\u0000"}',
    "\ufeff{}",
    "{'a':1}",
    "{a:1}",
    "NaN",
    `[${"1,".repeat(20000)}1]`,
    "a=1&b=2",
    "a=%00",
    "%",
    '<?xml version="1.0"?><a/>',
    "\xff\xfe",
    JSON.stringify({ n: 1e308, m: -1e308, i: 2 ** 64 }),
  ];
}

export const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/jsonx",
  "application/json-patch+json",
  "text/json",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=xyz",
  "multipart/form-data",
  "application/xml",
  "",
  "*/*",
  "application/json; charset=utf-16",
  "APPLICATION/JSON",
  "application/json;;;",
  "image/png",
];

/** Authorization headers; `valid` is replaced by a real key of an account the fuzzer registered. */
export const AUTHORIZATIONS = [
  "none",
  "valid",
  "valid",
  "valid",
  "Bearer ",
  `Bearer rtk_${"A".repeat(49)}`,
  "Bearer x%00",
  "Basic YTpi",
  `Bearer ${"x".repeat(8000)}`,
  "bearer valid",
  "Bearer a.b.c",
];

export const METHODS = [
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "OPTIONS",
  "TRACE",
  "PROPFIND",
  "MKCOL",
  "LOCK",
  "SEARCH",
  "PURGE",
];
