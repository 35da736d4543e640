import { describe, expect, it } from "vitest";
import { twimlFromActions } from "../../src/server/services/answers/actions-to-twiml";
import { isTwimlResponseDocument } from "../../src/server/services/answers/check-twiml";
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
    [
      "null item",
      [null],
      "actions[0] must be an object with one of say, play, pause, dial, gather, record, hangup, reject",
    ],
    [
      "string item",
      [{ say: "a" }, "hangup"],
      "actions[1] must be an object with one of say, play, pause, dial, gather, record, hangup, reject",
    ],
    [
      "array item",
      [["say", "x"]],
      "actions[0] must be an object with one of say, play, pause, dial, gather, record, hangup, reject",
    ],
    ["number item", [1], "actions[0] must be an object"],
    [
      "empty object",
      [{}],
      "actions[0] must be an object with one of say, play, pause, dial, gather, record, hangup, reject",
    ],
    ["two actions", [{ say: "a", play: "https://x/y" }], "actions[0] must have exactly one action, got 2 (say, play)"],
    ["known + unknown key", [{ play: "https://x/y", voice: "alice" }], "actions[0] must have exactly one key"],
    [
      "say + unknown option",
      [{ say: "a", loop: 2 }],
      "actions[0].loop is not an option of say; say takes voice and language",
    ],
    ["say bad voice", [{ say: "a", voice: "<x>" }], "actions[0].voice must be a voice name"],
    ["say bad language", [{ say: "a", language: "english please" }], "actions[0].language must be a language tag"],
    [
      "unknown key",
      [{ say: "a" }, { sms: "hi" }],
      "actions[1].sms is not a known action; use one of say, play, pause, dial, gather, record, hangup, reject",
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
    ["dial SIP without host", [{ dial: "sip:alice" }], "actions[0].dial must be an E.164 number"],
    ["dial SIP with space", [{ dial: "sip:al ice@example.com" }], "actions[0].dial must be an E.164 number"],
    ["dial object without to", [{ dial: { callerId: "+14155550100" } }], "actions[0].dial must be an E.164 number"],
    [
      "dial object unknown key",
      [{ dial: { to: "+14155550123", record: true } }],
      "actions[0].dial has unknown key record",
    ],
    [
      "dial callerId not E.164",
      [{ dial: { to: "+14155550123", callerId: "Acme" } }],
      "callerId must be an E.164 number",
    ],
    [
      "dial timeout 4",
      [{ dial: { to: "+14155550123", timeout: 4 } }],
      "timeout must be a whole number of seconds from 5 to 600",
    ],
    ["gather without actionUrl", [{ gather: { numDigits: 1 } }], "actions[0].gather actionUrl is required"],
    ["gather true", [{ gather: true }], "actions[0].gather must be { input?, numDigits?, timeout?, say?, actionUrl }"],
    ["gather private actionUrl", [{ gather: { actionUrl: "https://10.0.0.1/g" } }], "actions[0].gather actionUrl"],
    [
      "gather http actionUrl",
      [{ gather: { actionUrl: "http://example.com/g" } }],
      "actions[0].gather actionUrl must use https",
    ],
    [
      "gather bad input",
      [{ gather: { input: "voice", actionUrl: "https://example.com/g" } }],
      'input must be "dtmf", "speech" or "dtmf speech"',
    ],
    [
      "gather numDigits 0",
      [{ gather: { numDigits: 0, actionUrl: "https://example.com/g" } }],
      "numDigits must be a whole number from 1 to 99",
    ],
    [
      "gather unknown key",
      [{ gather: { loop: 2, actionUrl: "https://example.com/g" } }],
      "actions[0].gather has unknown key loop",
    ],
    ["record true", [{ record: true }], "actions[0].record must be { maxLength?, transcribe? }"],
    [
      "record maxLength 0",
      [{ record: { maxLength: 0 } }],
      "maxLength must be a whole number of seconds from 1 to 14400",
    ],
    ["record transcribe string", [{ record: { transcribe: "yes" } }], "transcribe must be true or false"],
    ["reject bad reason", [{ reject: { reason: "declined" } }], 'reason must be "busy" or "rejected"'],
    ["reject true", [{ reject: true }], 'actions[0].reject must be { reason?: "busy" | "rejected" }'],
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

  it.each<[kind: string, action: unknown, twiml: string]>([
    [
      "say with voice and language",
      { say: "Hallo", voice: "Polly.Vicki", language: "de-DE" },
      '<Say voice="Polly.Vicki" language="de-DE">Hallo</Say>',
    ],
    ["dial SIP", { dial: "sip:alice@example.com" }, "<Dial><Sip>sip:alice@example.com</Sip></Dial>"],
    [
      "dial SIP with port and params",
      { dial: "sip:alice@example.com:5060;transport=tls" },
      "<Dial><Sip>sip:alice@example.com:5060;transport=tls</Sip></Dial>",
    ],
    [
      "dial object",
      { dial: { to: "+14155550123", callerId: "+14155550100", timeout: 20 } },
      '<Dial callerId="+14155550100" timeout="20"><Number>+14155550123</Number></Dial>',
    ],
    [
      "dial object SIP",
      { dial: { to: "sip:desk@pbx.example.com" } },
      "<Dial><Sip>sip:desk@pbx.example.com</Sip></Dial>",
    ],
    [
      "gather",
      {
        gather: {
          input: "dtmf speech",
          numDigits: 1,
          timeout: 5,
          say: "Press 1",
          actionUrl: "https://example.com/menu",
        },
      },
      '<Gather action="https://example.com/menu" method="POST" input="dtmf speech" numDigits="1" timeout="5"><Say>Press 1</Say></Gather>',
    ],
    [
      "gather minimal",
      { gather: { actionUrl: "https://example.com/g" } },
      '<Gather action="https://example.com/g" method="POST"/>',
    ],
    ["record", { record: { maxLength: 120, transcribe: true } }, '<Record maxLength="120" transcribe="true"/>'],
    ["record defaults", { record: {} }, "<Record/>"],
    ["reject busy", { reject: { reason: "busy" } }, '<Reject reason="busy"/>'],
    ["reject default", { reject: {} }, "<Reject/>"],
  ])("builds %s", (_kind, action, twiml) => {
    expect(built([action])).toBe(`${DECL}<Response>${twiml}</Response>`);
  });

  it("takes gather's actionUrl under the policy given (a local backend when private addresses are allowed)", () => {
    const local = [{ gather: { actionUrl: "http://127.0.0.1:4000/g" } }];
    expect(twimlFromActions(local, { urlPolicy: { allowPrivate: false } }).ok).toBe(false);
    expect(twimlFromActions(local, { urlPolicy: { allowPrivate: true } })).toEqual({
      ok: true,
      twiml: `${DECL}<Response><Gather action="http://127.0.0.1:4000/g" method="POST"/></Response>`,
    });
  });

  it("refuses actions whose TwiML would exceed 64 KiB", () => {
    const result = twimlFromActions(Array.from({ length: 20 }, () => ({ say: "&".repeat(4096) })));
    expect(result).toEqual({ ok: false, message: "actions produce TwiML larger than 64 KiB" });
  });
});
