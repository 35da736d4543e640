import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  CALLBACK_URL_REASONS as R,
  checkCallbackUrl,
  isPublicUnicastIp,
  zCallbackUrl,
} from "../../src/shared/url-policy";

const strict = { allowPrivate: false };
const lenient = { allowPrivate: true };

const longUrl = (length: number) => {
  const prefix = "https://api.example.com/";
  return prefix + "a".repeat(length - prefix.length);
};

const hostile: Array<[url: string, reason: string]> = [
  // IPv4 loopback in every spelling the WHATWG parser accepts
  ["https://127.0.0.1/", R.privateAddress],
  ["https://127.0.0.1:8443/hook", R.privateAddress],
  ["https://127.0.0.1./", R.privateAddress],
  ["https://2130706433/", R.privateAddress],
  ["https://0x7f000001/", R.privateAddress],
  ["https://0x7f.1/", R.privateAddress],
  ["https://0177.0.0.1/", R.privateAddress],
  ["https://0177.1/", R.privateAddress],
  ["https://127.1/", R.privateAddress],
  ["https://127.0.1/", R.privateAddress],
  ["https://%31%32%37.0.0.1/", R.privateAddress],
  ["https://127.255.255.254/", R.privateAddress],
  // other non-public IPv4 ranges
  ["https://0.0.0.0/", R.privateAddress],
  ["https://0/", R.privateAddress],
  ["https://10.0.0.1/", R.privateAddress],
  ["https://012.0.0.1/", R.privateAddress], // octal 10.0.0.1
  ["https://167772161/", R.privateAddress], // decimal 10.0.0.1
  ["https://100.64.0.1/", R.privateAddress],
  ["https://100.127.255.255/", R.privateAddress],
  ["https://169.254.169.254/latest/meta-data", R.privateAddress],
  ["https://0xa9fea9fe/latest/meta-data", R.privateAddress], // hex 169.254.169.254
  ["https://172.16.0.1/", R.privateAddress],
  ["https://172.31.255.255/", R.privateAddress],
  ["https://192.0.0.8/", R.privateAddress],
  ["https://192.0.2.10/", R.privateAddress],
  ["https://192.88.99.1/", R.privateAddress],
  ["https://192.168.1.1/", R.privateAddress],
  ["https://0xc0a80101/", R.privateAddress], // hex 192.168.1.1
  ["https://198.18.0.1/", R.privateAddress],
  ["https://198.19.255.255/", R.privateAddress],
  ["https://198.51.100.7/", R.privateAddress],
  ["https://203.0.113.7/", R.privateAddress],
  ["https://224.0.0.1/", R.privateAddress],
  ["https://239.255.255.250/", R.privateAddress],
  ["https://240.0.0.1/", R.privateAddress],
  ["https://255.255.255.255/", R.privateAddress],
  ["https://4294967295/", R.privateAddress], // decimal 255.255.255.255
  // IPv6 literals
  ["https://[::]/", R.privateAddress],
  ["https://[::1]/", R.privateAddress],
  ["https://[0:0:0:0:0:0:0:1]:8443/", R.privateAddress],
  ["https://[::ffff:127.0.0.1]/", R.privateAddress],
  ["https://[::ffff:7f00:1]/", R.privateAddress],
  ["https://[::ffff:169.254.169.254]/", R.privateAddress],
  ["https://[::ffff:8.8.8.8]/", R.privateAddress], // mapped public IPv4 is refused too, by design
  ["https://[::127.0.0.1]/", R.privateAddress],
  ["https://[64:ff9b::127.0.0.1]/", R.privateAddress],
  ["https://[64:ff9b::808:808]/", R.privateAddress],
  ["https://[2002:7f00:1::]/", R.privateAddress],
  ["https://[2002:808:808::1]/", R.privateAddress],
  ["https://[100::1]/", R.privateAddress],
  ["https://[2001::1]/", R.privateAddress],
  ["https://[2001:1ff::1]/", R.privateAddress],
  ["https://[2001:db8::1]/", R.privateAddress],
  ["https://[3fff::1]/", R.privateAddress],
  ["https://[fc00::1]/", R.privateAddress],
  ["https://[fd00::1]/", R.privateAddress],
  ["https://[fe80::1]/", R.privateAddress],
  ["https://[febf::1]/", R.privateAddress],
  ["https://[fec0::1]/", R.privateAddress],
  ["https://[ff02::1]/", R.privateAddress],
  ["https://[4000::1]/", R.privateAddress],
  ["https://[1::1]/", R.privateAddress],
  // local / internal names
  ["https://localhost/", R.localName],
  ["https://LOCALHOST/", R.localName],
  ["https://localhost./", R.localName],
  ["https://localhost..:443/", R.localName],
  ["https://localhost:3000/", R.localName],
  ["https://foo.localhost/", R.localName],
  ["https://Foo.LocalHost./", R.localName],
  ["https://printer.local/", R.localName],
  ["https://metadata.google.internal/", R.localName],
  ["https://foo.internal./", R.localName],
  ["https://localhost%2e/", R.localName],
  // scheme
  ["http://example.com/", R.httpsOnly],
  ["HTTP://example.com/", R.httpsOnly],
  ["ftp://example.com/file", R.httpsOnly],
  ["javascript:alert(1)", R.httpsOnly],
  ["file:///etc/passwd", R.httpsOnly],
  ["data:text/plain,hello", R.httpsOnly],
  ["gopher://example.com:70/_", R.httpsOnly],
  ["ws://example.com/", R.httpsOnly],
  // credentials
  ["https://user:pass@example.com/", R.credentials],
  ["https://user@example.com/", R.credentials],
  ["https://:pass@example.com/", R.credentials],
  ["https://@example.com/", R.credentials],
  ["https://:@example.com/", R.credentials],
  ["https://example.com@127.0.0.1/", R.credentials],
  ["https:\\\\user@example.com/", R.credentials],
  // length, syntax
  [longUrl(2049), R.tooLong],
  ["", R.invalid],
  ["example.com/callback", R.invalid],
  ["https://", R.invalid],
  ["https://exa mple.com/", R.controlCharacters],
  ["https://example.com/\nx", R.controlCharacters],
  [" https://example.com/", R.controlCharacters],
  ["https://1.2.3.4.5/", R.invalid],
  ["https://[fe80::1%25eth0]/", R.invalid],
];

const legitimate = [
  "https://api.example.com/twilio/start",
  "https://api.example.com:8443/twilio/start",
  "https://api.example.com/twilio/start?tenant=42&sig=abc%20def",
  "https://api.example.com/twilio/start#ignored",
  "https://API.Example.COM/Path",
  "https://8.8.8.8/x",
  "https://1.1.1.1:8443/x",
  "https://100.128.0.1/", // just past CGNAT
  "https://172.32.0.1/", // just past 172.16/12
  "https://[2606:4700:4700::1111]/",
  "https://[2a00:1450:4001:82a::200e]:8443/hook",
  "https://[2001:200::1]/", // just past 2001::/23
  "https://bücher.example.org/webhook",
  "https://example.com./",
  "https://local.example.com/", // forbidden words only matter as suffixes
  "https://internal-api.example.com/",
  "https://localhost.example.com/",
  "https://a.b.c.d.example.co.uk/deep/path",
  longUrl(2048),
];

describe("checkCallbackUrl (allowPrivate=false)", () => {
  it("has a substantial hostile table", () => {
    expect(hostile.length).toBeGreaterThanOrEqual(40);
    expect(legitimate.length).toBeGreaterThanOrEqual(10);
  });

  it.each(hostile)("rejects %s", (url, reason) => {
    expect(checkCallbackUrl(url, strict)).toEqual({ ok: false, reason });
  });

  it.each(legitimate)("accepts %s", (url) => {
    const check = checkCallbackUrl(url, strict);
    expect(check).toMatchObject({ ok: true });
  });

  it("returns the normalised URL", () => {
    const check = checkCallbackUrl("https://bücher.example.org:443/a?b=1", strict);
    expect(check.ok && check.url.href).toBe("https://xn--bcher-kva.example.org/a?b=1");
  });

  it("measures the length after IDNA normalisation too", () => {
    const head = `https://${"ü".repeat(40)}.example.com/`;
    const raw = head + "a".repeat(2048 - head.length);
    expect(raw.length).toBe(2048);
    expect(new URL(raw).href.length).toBeGreaterThan(2048);
    expect(checkCallbackUrl(raw, strict)).toEqual({ ok: false, reason: R.tooLong });
  });
});

describe("checkCallbackUrl (allowPrivate=true)", () => {
  it.each([
    "http://127.0.0.1:3000/hook",
    "http://localhost:3000/hook",
    "https://localhost./",
    "http://[::1]:8080/",
    "https://10.0.0.5/",
    "https://169.254.169.254/",
    "http://printer.local/",
    "https://api.example.com/twilio/start",
  ])("accepts %s", (url) => {
    expect(checkCallbackUrl(url, lenient)).toMatchObject({ ok: true });
  });

  it.each([
    ["ftp://127.0.0.1/", R.httpOrHttps],
    ["file:///etc/passwd", R.httpOrHttps],
    ["javascript:alert(1)", R.httpOrHttps],
    ["http://user:pass@127.0.0.1/", R.credentials],
    ["http://@localhost/", R.credentials],
    [longUrl(2049), R.tooLong],
    ["not a url", R.controlCharacters],
    ["localhost:3000", R.httpOrHttps],
  ])("still rejects %s", (url, reason) => {
    expect(checkCallbackUrl(url, lenient)).toEqual({ ok: false, reason });
  });
});

describe("isPublicUnicastIp", () => {
  it.each(["8.8.8.8", "93.184.215.14", "100.63.255.255", "172.15.255.255", "2606:4700:4700::1111", "2a00::1"])(
    "%s is public",
    (ip) => expect(isPublicUnicastIp(ip)).toBe(true),
  );

  it.each([
    "127.0.0.1",
    "10.1.2.3",
    "100.64.0.0",
    "169.254.0.1",
    "172.16.0.0",
    "192.168.255.255",
    "255.255.255.255",
    "::",
    "::1",
    "::ffff:127.0.0.1",
    "::ffff:8.8.8.8",
    "64:ff9b::7f00:1",
    "fe80::1%eth0",
    "fd12:3456::1",
    "ff05::2",
    "2001:db8::",
    "2002::1",
    "",
    "localhost",
    "[::1]",
    "0177.0.0.1",
    "127.1",
  ])("%s is not", (ip) => expect(isPublicUnicastIp(ip)).toBe(false));
});

describe("zCallbackUrl", () => {
  it("trims and returns the string", () => {
    const schema = zCallbackUrl(() => strict);
    expect(schema.parse("  https://api.example.com/hook \n")).toBe("https://api.example.com/hook");
  });

  it("uses the policy reason as the issue message", () => {
    const result = zCallbackUrl(() => strict).safeParse("https://127.0.0.1/");
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.message)).toEqual([R.privateAddress]);
  });

  it("reports an oversized value once", () => {
    const result = zCallbackUrl(() => strict).safeParse(longUrl(5000));
    expect(result.error?.issues.map((i) => i.message)).toEqual([R.tooLong]);
  });

  it("reads the options at validation time", () => {
    let allowPrivate = false;
    const schema = z.object({ url: zCallbackUrl(() => ({ allowPrivate })) });
    expect(schema.safeParse({ url: "http://127.0.0.1:3000/" }).success).toBe(false);
    allowPrivate = true;
    expect(schema.safeParse({ url: "http://127.0.0.1:3000/" }).success).toBe(true);
  });

  it("rejects non-strings", () => {
    expect(zCallbackUrl(() => strict).safeParse(42).success).toBe(false);
  });

  it("converts to JSON Schema as a string with maxLength", () => {
    expect(z.toJSONSchema(zCallbackUrl(() => strict))).toMatchObject({ type: "string", maxLength: 2048 });
  });
});
