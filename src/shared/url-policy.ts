/**
 * Which customer-supplied callback URLs the service is willing to call.
 *
 * Callback URLs are the service's largest SSRF surface: this module is the static half of the
 * defence (syntax, scheme, credentials, forbidden names, IP literals). The dynamic half — what a
 * hostname resolves to at request time — lives in the callback HTTP client, which reuses
 * `isPublicUnicastIp` on every resolved address.
 *
 * Pure: no I/O, no environment reads. Whether private targets are allowed is the caller's decision.
 */
import ipaddr from "ipaddr.js";
import { isIP } from "./ip-literal";
import { z } from "zod";

const MAX_CALLBACK_URL_LENGTH = 2048;

export type CallbackUrlPolicyOptions = { allowPrivate: boolean };
export type CallbackUrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

export const CALLBACK_URL_REASONS = {
  tooLong: `must be at most ${MAX_CALLBACK_URL_LENGTH} characters`,
  controlCharacters: "must not contain whitespace or control characters",
  invalid: "must be a valid absolute URL",
  httpsOnly: "must use https",
  httpOrHttps: "must use http or https",
  credentials: "must not contain credentials",
  localName: "must not point at a local or internal host name",
  privateAddress: "must not point at a private or reserved address",
} as const;

// Names that can only ever reach the service's own machine or network; DNS would not be consulted
// for some of them (mDNS, /etc/hosts), so the request-time address check cannot be relied upon.
const FORBIDDEN_NAMES = ["localhost"];
const FORBIDDEN_SUFFIXES = ["localhost", "local", "internal"];

export function checkCallbackUrl(raw: string, opts: CallbackUrlPolicyOptions): CallbackUrlCheck {
  const fail = (reason: string): CallbackUrlCheck => ({ ok: false, reason });

  if (raw.length > MAX_CALLBACK_URL_LENGTH) return fail(CALLBACK_URL_REASONS.tooLong);
  // The WHATWG parser silently drops tabs/newlines and trims spaces; other parsers downstream (logs,
  // customer dashboards) may not, so the stored string must be exactly what gets called.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's job
  if (/[\u0000-\u0020\u007f-\u009f]/.test(raw)) return fail(CALLBACK_URL_REASONS.controlCharacters);

  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail(CALLBACK_URL_REASONS.invalid);
  }

  if (opts.allowPrivate) {
    if (url.protocol !== "https:" && url.protocol !== "http:") return fail(CALLBACK_URL_REASONS.httpOrHttps);
  } else if (url.protocol !== "https:") {
    return fail(CALLBACK_URL_REASONS.httpsOnly);
  }

  // `new URL("https://@host/")` forgets the empty user-info, so the raw authority is inspected too.
  if (url.username !== "" || url.password !== "" || rawAuthority(raw).includes("@")) {
    return fail(CALLBACK_URL_REASONS.credentials);
  }

  // IDNA (punycode) can make the normalised form longer than the input.
  if (url.href.length > MAX_CALLBACK_URL_LENGTH) return fail(CALLBACK_URL_REASONS.tooLong);

  if (opts.allowPrivate) return { ok: true, url };

  const host = url.hostname;
  if (host.startsWith("[") && host.endsWith("]")) {
    return isPublicUnicastIp(host.slice(1, -1)) ? { ok: true, url } : fail(CALLBACK_URL_REASONS.privateAddress);
  }
  // The WHATWG parser has already turned every numeric IPv4 spelling (decimal, octal, hex, short
  // forms, trailing dot) into canonical dotted form, so `isIP` sees all of them here.
  if (isIP(host) === 4) {
    return isPublicUnicastIp(host) ? { ok: true, url } : fail(CALLBACK_URL_REASONS.privateAddress);
  }

  const name = host.replace(/\.+$/, "").toLowerCase();
  if (name === "" || FORBIDDEN_NAMES.includes(name) || FORBIDDEN_SUFFIXES.some((s) => name.endsWith(`.${s}`))) {
    return fail(CALLBACK_URL_REASONS.localName);
  }
  return { ok: true, url };
}

/**
 * Zod string schema for a callback URL field. The options thunk is read on every validation so the
 * schema can be declared at module load, before configuration is known. The length cap is a plain
 * `.max` so that JSON Schema output carries `maxLength`; it aborts so an oversized value yields one issue.
 */
export function zCallbackUrl(opts: () => CallbackUrlPolicyOptions) {
  return z
    .string()
    .trim()
    .max(MAX_CALLBACK_URL_LENGTH, { error: CALLBACK_URL_REASONS.tooLong, abort: true })
    .superRefine((value, ctx) => {
      const check = checkCallbackUrl(value, opts());
      if (!check.ok) ctx.addIssue({ code: "custom", message: check.reason });
    });
}

/**
 * Mirrors the WHATWG authority state for special schemes: any run of `/` or `\` after the scheme,
 * then everything up to the next `/`, `\`, `?` or `#`.
 */
function rawAuthority(raw: string): string {
  const rest = raw.replace(/^[a-z][a-z0-9+.-]*:/i, "").replace(/^[/\\]*/, "");
  const end = rest.search(/[/\\?#]/);
  return end === -1 ? rest : rest.slice(0, end);
}

// ipaddr.js names the special-purpose ranges (private, loopback, link-local,
// carrier-grade NAT, documentation, benchmarking, multicast, 6to4, Teredo,
// IPv4-mapped, NAT64 …); only its plain "unicast" is public. On top of that,
// IPv6 must be global unicast (2000::/3): translation and tunnel forms are
// refused outright rather than judged by the IPv4 address they embed, because
// a customer can always give the plain IPv4 address, and where a translator
// or relay delivers the packet is not something this check can see.
const GLOBAL_UNICAST_IPV6 = ipaddr.parseCIDR("2000::/3");

/**
 * Whether `address` (canonical IPv4 dotted or IPv6 text, as DNS lookup returns it; no brackets)
 * is a globally routable unicast address the service may connect to. Anything unparseable is not.
 */
export function isPublicUnicastIp(address: string): boolean {
  // Zone ids (`fe80::1%eth0`) only exist for scoped, i.e. non-global, addresses.
  if (isIP(address) === 0 || address.includes("%")) return false;
  const ip = ipaddr.parse(address);
  if (ip.range() !== "unicast") return false;
  return ip.kind() === "ipv4" || ip.match(GLOBAL_UNICAST_IPV6);
}
