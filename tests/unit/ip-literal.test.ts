import { isIP as nodeIsIP } from "node:net";
import { describe, expect, it } from "vitest";
import { isIP } from "@/server/webhooks/http/ip-literal";

const CORPUS = [
  "0.0.0.0",
  "127.0.0.1",
  "255.255.255.255",
  "256.0.0.1",
  "1.2.3",
  "1.2.3.4.5",
  "01.2.3.4",
  "1.02.3.4",
  "1.2.3.04",
  "10.0.0.1",
  "192.168.1.1",
  "1.2.3.4 ",
  " 1.2.3.4",
  "1..2.3",
  "a.b.c.d",
  "",
  "0",
  "4294967295",
  "0x7f.0.0.1",
  "::",
  "::1",
  "1::",
  "::ffff:127.0.0.1",
  "::ffff:7f00:1",
  "fe80::1%eth0",
  "fe80::1%",
  "2001:db8::",
  "2001:db8:0:0:0:0:2:1",
  "2001:db8::2:1",
  "2001:0db8:0000:0000:0000:0000:0002:0001",
  "1:2:3:4:5:6:7:8",
  "1:2:3:4:5:6:7:8:9",
  "1:2:3:4:5:6:7::",
  "1::2::3",
  ":::",
  "12345::",
  "g::1",
  "::127.0.0.1",
  "64:ff9b::192.0.2.33",
  "[::1]",
  "::1/128",
  "fc00::",
  "FE80::ABCD",
  "1:2:3:4:5:6:1.2.3.4",
  "1:2:3:4:5:6:7:1.2.3.4",
  "example.com",
  "localhost",
  "1.2.3.4%eth0",
];

describe("isIP without node:net", () => {
  it.each(CORPUS)("agrees with node:net on %j", (text) => {
    expect(isIP(text)).toBe(nodeIsIP(text));
  });
});
