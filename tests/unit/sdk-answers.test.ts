import { describe, expect, it } from "vitest";
import { type Action, answer, dial, gather, hangup, pause, play, record, reject, say } from "../../sdk/src/answers";
import { twimlFromActions } from "../../src/server/services/answers/actions-to-twiml";

// The SDK's answer builders (docs/decisions.md §22's actions) give exactly the JSON the engine's own
// vocabulary accepts: each is built into TwiML by the server's twimlFromActions.
const twimlOf = (actions: unknown) => {
  const result = twimlFromActions(actions, { urlPolicy: { allowPrivate: false } });
  if (!result.ok) throw new Error(result.message);
  return result.twiml;
};

describe("answer builders", () => {
  it.each<[name: string, action: Action, json: unknown, twiml: string[]]>([
    ["say", say("Hello"), { say: "Hello" }, ["<Say>Hello</Say>"]],
    [
      "say with voice and language",
      say("Hallo", { voice: "Polly.Marlene", language: "de-DE" }),
      { say: "Hallo", voice: "Polly.Marlene", language: "de-DE" },
      ['voice="Polly.Marlene"', 'language="de-DE"', ">Hallo</Say>"],
    ],
    ["dial a number", dial("+14155550123"), { dial: "+14155550123" }, ["<Dial>+14155550123</Dial>"]],
    [
      "dial with options",
      dial("+14155550123", { timeout: 15, callerId: "+14155550100" }),
      { dial: { to: "+14155550123", timeout: 15, callerId: "+14155550100" } },
      ['timeout="15"', 'callerId="+14155550100"', "+14155550123"],
    ],
  ])("%s", (_name, action, json, fragments) => {
    expect(action).toEqual(json);
    const twiml = twimlOf([action]);
    for (const fragment of fragments) expect(twiml).toContain(fragment);
  });

  it("answer() lists every kind in order, and the engine builds them all", () => {
    const built = answer(
      say("Welcome"),
      play("https://cdn.example.com/hold.mp3"),
      pause(2),
      gather({ actionUrl: "https://api.example.com/digits", numDigits: 1, say: "Press 1" }),
      record({ maxLength: 60, transcribe: false }),
      dial("sip:alice@example.com"),
      hangup(),
    );
    expect(built).toEqual({
      actions: [
        { say: "Welcome" },
        { play: "https://cdn.example.com/hold.mp3" },
        { pause: 2 },
        { gather: { actionUrl: "https://api.example.com/digits", numDigits: 1, say: "Press 1" } },
        { record: { maxLength: 60, transcribe: false } },
        { dial: "sip:alice@example.com" },
        { hangup: true },
      ],
    });
    const twiml = twimlOf(built.actions);
    for (const tag of [
      "<Say>Welcome</Say>",
      "<Play>",
      '<Pause length="2"/>',
      "<Gather",
      "<Record",
      "<Sip>",
      "<Hangup/>",
    ])
      expect(twiml).toContain(tag);
    expect(JSON.parse(JSON.stringify(built))).toEqual(built);
  });

  it("reject() with and without a reason", () => {
    expect(reject()).toEqual({ reject: {} });
    expect(reject("busy")).toEqual({ reject: { reason: "busy" } });
    expect(twimlOf([reject("busy")])).toContain('<Reject reason="busy"/>');
    expect(twimlOf([reject()])).toContain("<Reject");
  });
});
