import { describe, expect, it } from "vitest";
import { compareAnswers, normaliseTwiml } from "../../src/server/services/answers/compare-twiml";
import { twimlFromActions } from "../../src/server/services/answers/actions-to-twiml";

const same = (a: string, b: string) => compareAnswers({ twiml: a }, { twiml: b });

describe("normaliseTwiml / compareAnswers (docs/decisions.md §23)", () => {
  it("ignores whitespace between elements and around text, and collapses runs inside text", () => {
    expect(
      same("<Response><Say>Hello there</Say></Response>", "<Response>\n  <Say>\n Hello   there \n</Say>\n</Response>"),
    ).toBe("same");
  });

  it("ignores attribute order, quoting and escaping", () => {
    expect(
      same(
        `<Response><Say voice="alice" language="en-US">A &amp; B</Say></Response>`,
        `<Response><Say language='en-US' voice="alice">A &#38; B</Say></Response>`,
      ),
    ).toBe("same");
    expect(same("<Response><Say><![CDATA[a < b]]></Say></Response>", "<Response><Say>a &lt; b</Say></Response>")).toBe(
      "same",
    );
  });

  it("ignores the XML declaration, a BOM, comments and empty-element syntax", () => {
    const built = twimlFromActions([{ say: "Hi" }, { hangup: true }]);
    if (!built.ok) throw new Error(built.message);
    expect(built.twiml.startsWith("<?xml")).toBe(true);
    expect(same(built.twiml, "\ufeff<Response><!-- hi --><Say>Hi</Say><Hangup></Hangup></Response>")).toBe("same");
  });

  it("sees a different word, attribute value, element or order", () => {
    expect(same("<Response><Say>Hello</Say></Response>", "<Response><Say>Goodbye</Say></Response>")).toBe("different");
    expect(
      same(`<Response><Say voice="alice">Hi</Say></Response>`, `<Response><Say voice="man">Hi</Say></Response>`),
    ).toBe("different");
    expect(same("<Response><Say>Hi</Say><Hangup/></Response>", "<Response><Hangup/><Say>Hi</Say></Response>")).toBe(
      "different",
    );
    expect(same("<Response><Say>Hi</Say></Response>", "<Response><Say>Hi</Say><Hangup/></Response>")).toBe("different");
    // Whitespace between words is meaningful, only its amount is not.
    expect(same("<Response><Say>ab</Say></Response>", "<Response><Say>a b</Say></Response>")).toBe("different");
  });

  it("fails when the second answer could not be used; differs when only the first could not", () => {
    expect(compareAnswers({ twiml: "<Response/>" }, { twiml: null })).toBe("failed");
    expect(compareAnswers({ twiml: null }, { twiml: null })).toBe("failed");
    expect(compareAnswers({ twiml: null }, { twiml: "<Response/>" })).toBe("different");
  });

  it("gives null for a document that is not well-formed", () => {
    expect(normaliseTwiml("<Response><Say>")).toBeNull();
    expect(normaliseTwiml("<Response></Say>")).toBeNull();
    expect(normaliseTwiml(`<Response a="1"/>`)).toBe(`<Response a="1"></Response>`);
  });
});
