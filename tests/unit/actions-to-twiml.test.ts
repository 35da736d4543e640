import { describe, expect, it } from "vitest";
import { twimlFromActions } from "../../src/server/engine/answer/actions-to-twiml";
import { isTwimlResponseDocument } from "../../src/server/engine/answer/check-twiml";
import { DECL } from "./fixtures/twiml-documents";

describe("twimlFromActions", () => {
  const built = (actions: unknown) => {
    const result = twimlFromActions(actions);
    if (!result.ok) throw new Error(`expected ok, got: ${result.message}`);
    expect(isTwimlResponseDocument(result.twiml)).toBe(true);
    return result.twiml;
  };

  it.each<[kind: string, action: unknown, twiml: string]>([
    ["say", { say: "Hello there" }, "<Say>Hello there</Say>"],
    ["say (escaped)", { say: "Tom & Jerry <3 ]]>" }, "<Say>Tom &amp; Jerry &lt;3 ]]&gt;</Say>"],
    ["say (unicode)", { say: "Grüß dich 😀" }, "<Say>Grüß dich 😀</Say>"],
    ["say (4096 chars)", { say: "a".repeat(4096) }, `<Say>${"a".repeat(4096)}</Say>`],
    ["play https", { play: "https://cdn.example.com/hold.mp3" }, "<Play>https://cdn.example.com/hold.mp3</Play>"],
    [
      "play http with query",
      { play: "http://example.com/a.wav?x=1&y=2" },
      "<Play>http://example.com/a.wav?x=1&amp;y=2</Play>",
    ],
    ["dial", { dial: "+14155550123" }, "<Dial>+14155550123</Dial>"],
    ["dial (15 digits)", { dial: "+123456789012345" }, "<Dial>+123456789012345</Dial>"],
    ["dial (shortest)", { dial: "+12" }, "<Dial>+12</Dial>"],
    ["pause", { pause: 2 }, '<Pause length="2"/>'],
    ["pause (1)", { pause: 1 }, '<Pause length="1"/>'],
    ["pause (600)", { pause: 600 }, '<Pause length="600"/>'],
    ["hangup", { hangup: true }, "<Hangup/>"],
  ])("builds %s", (_kind, action, twiml) => {
    expect(built([action])).toBe(`${DECL}<Response>${twiml}</Response>`);
  });

  it("builds a sequence in order", () => {
    expect(
      built([
        { say: "Connecting you" },
        { play: "https://x.example/ring.mp3" },
        { pause: 2 },
        { dial: "+442071838750" },
        { hangup: true },
      ]),
    ).toBe(
      `${DECL}<Response><Say>Connecting you</Say><Play>https://x.example/ring.mp3</Play><Pause length="2"/><Dial>+442071838750</Dial><Hangup/></Response>`,
    );
  });

  it("accepts 50 actions", () => {
    expect(built(Array.from({ length: 50 }, () => ({ pause: 1 })))).toContain('<Pause length="1"/>');
  });

  it.each<[label: string, actions: unknown, message: string]>([
    ["undefined", undefined, "actions must be an array"],
    ["null", null, "actions must be an array"],
    ["an object", { say: "x" }, "actions must be an array"],
    ["a string", "say hi", "actions must be an array"],
    ["empty", [], "actions must not be empty"],
    ["51 items", Array.from({ length: 51 }, () => ({ hangup: true })), "actions must have at most 50 items (got 51)"],
    ["null item", [null], "actions[0] must be an object with one of say, play, dial, pause, hangup"],
    [
      "string item",
      [{ say: "a" }, "hangup"],
      "actions[1] must be an object with one of say, play, dial, pause, hangup",
    ],
    ["array item", [["say", "x"]], "actions[0] must be an object with one of say, play, dial, pause, hangup"],
    ["number item", [1], "actions[0] must be an object"],
    ["empty object", [{}], "actions[0] must be an object with one of say, play, dial, pause, hangup"],
    ["two keys", [{ say: "a", play: "https://x/y" }], "actions[0] must have exactly one key, got 2 (say, play)"],
    ["known + unknown key", [{ say: "a", voice: "alice" }], "actions[0] must have exactly one key"],
    [
      "unknown key",
      [{ say: "a" }, { sms: "hi" }],
      "actions[1].sms is not a known action; use one of say, play, dial, pause, hangup",
    ],
    ["wrong-case key", [{ Say: "a" }], "actions[0].Say is not a known action"],
    ["__proto__ key", JSON.parse('[{"__proto__": {"say": "x"}}]'), "actions[0].__proto__ is not a known action"],
    ["say empty", [{ say: "" }], "actions[0].say must be a non-empty string"],
    ["say blank", [{ say: "  \n " }], "actions[0].say must be a non-empty string"],
    ["say too long", [{ say: "a".repeat(4097) }], "actions[0].say must be at most 4096 characters"],
    ["say number", [{ say: 42 }], "actions[0].say must be a non-empty string of at most 4096 characters"],
    ["say null", [{ say: null }], "actions[0].say must be a non-empty string"],
    ["say control char", [{ say: "a\u0001b" }], "actions[0].say contains a character that is not allowed in XML"],
    ["say lone surrogate", [{ say: "a\uD800" }], "actions[0].say contains a character that is not allowed in XML"],
    ["play ftp", [{ play: "ftp://example.com/a.mp3" }], "actions[0].play must be an absolute http(s) URL"],
    ["play relative", [{ play: "/hold.mp3" }], "actions[0].play must be an absolute http(s) URL"],
    ["play scheme-relative", [{ play: "//example.com/a.mp3" }], "actions[0].play must be an absolute http(s) URL"],
    ["play https:host", [{ play: "https:example.com/a.mp3" }], "actions[0].play must be an absolute http(s) URL"],
    ["play no host", [{ play: "https://" }], "actions[0].play must be an absolute http(s) URL"],
    ["play with space", [{ play: "https://example.com/a b.mp3" }], "actions[0].play must be an absolute http(s) URL"],
    ["play with newline", [{ play: "https://example.com/\na.mp3" }], "actions[0].play must be an absolute http(s) URL"],
    ["play javascript:", [{ play: "javascript:alert(1)" }], "actions[0].play must be an absolute http(s) URL"],
    ["play number", [{ play: 5 }], "actions[0].play must be an absolute http(s) URL"],
    [
      "play too long",
      [{ play: `https://example.com/${"a".repeat(2100)}` }],
      "actions[0].play must be at most 2048 characters",
    ],
    [
      "dial without +",
      [{ say: "a" }, { say: "b" }, { dial: "14155550123" }],
      "actions[2].dial must be an E.164 number",
    ],
    ["dial +0", [{ dial: "+04155550123" }], "actions[0].dial must be an E.164 number"],
    ["dial too short", [{ dial: "+1" }], "actions[0].dial must be an E.164 number"],
    ["dial 16 digits", [{ dial: "+1234567890123456" }], "actions[0].dial must be an E.164 number"],
    ["dial with spaces", [{ dial: "+1 415 555 0123" }], "actions[0].dial must be an E.164 number"],
    ["dial with trailing newline", [{ dial: "+14155550123\n" }], "actions[0].dial must be an E.164 number"],
    ["dial SIP", [{ dial: "sip:alice@example.com" }], "actions[0].dial must be an E.164 number"],
    ["dial number", [{ dial: 14155550123 }], "actions[0].dial must be an E.164 number"],
    ["pause 0", [{ pause: 0 }], "actions[0].pause must be a whole number of seconds from 1 to 600"],
    ["pause 601", [{ pause: 601 }], "actions[0].pause must be a whole number of seconds from 1 to 600"],
    ["pause negative", [{ pause: -1 }], "actions[0].pause must be a whole number of seconds from 1 to 600"],
    ["pause fraction", [{ pause: 1.5 }], "actions[0].pause must be a whole number of seconds from 1 to 600"],
    ["pause string", [{ pause: "2" }], "actions[0].pause must be a whole number of seconds from 1 to 600"],
    ["pause NaN", [{ pause: Number.NaN }], "actions[0].pause must be a whole number of seconds from 1 to 600"],
    [
      "pause Infinity",
      [{ pause: Number.POSITIVE_INFINITY }],
      "actions[0].pause must be a whole number of seconds from 1 to 600",
    ],
    ["hangup false", [{ hangup: false }], "actions[0].hangup must be true"],
    ["hangup string", [{ hangup: "true" }], "actions[0].hangup must be true"],
    ["hangup 1", [{ hangup: 1 }], "actions[0].hangup must be true"],
    ["hangup null", [{ hangup: null }], "actions[0].hangup must be true"],
  ])("rejects %s", (_label, actions, message) => {
    const result = twimlFromActions(actions);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain(message);
  });

  it("refuses actions whose TwiML would exceed 64 KiB", () => {
    const result = twimlFromActions(Array.from({ length: 20 }, () => ({ say: "&".repeat(4096) })));
    expect(result).toEqual({ ok: false, message: "actions produce TwiML larger than 64 KiB" });
  });
});
