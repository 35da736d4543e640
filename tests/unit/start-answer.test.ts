import { describe, expect, it } from "vitest";
import { isTwimlResponseDocument } from "../../src/server/services/answers/check-twiml";
import {
  fallbackTwiml,
  interpretStartAnswer,
  REJECT_TWIML,
  type StartAnswerInput,
} from "../../src/server/engine/start-answer";
import { DECL, docOfBytes, invalidDocuments, KiB, validDocuments } from "./fixtures/twiml-documents";

describe("REJECT_TWIML and fallbackTwiml", () => {
  it("REJECT_TWIML is the SDK's <Reject/> document", () => {
    expect(REJECT_TWIML).toBe('<?xml version="1.0" encoding="UTF-8"?><Response><Reject/></Response>');
    expect(isTwimlResponseDocument(REJECT_TWIML)).toBe(true);
  });

  it("fallbackTwiml apologises and hangs up", () => {
    expect(fallbackTwiml()).toBe(
      `${DECL}<Response><Say>We're sorry, this call cannot be completed right now. Goodbye.</Say><Hangup/></Response>`,
    );
    expect(isTwimlResponseDocument(fallbackTwiml())).toBe(true);
  });
});

describe("interpretStartAnswer", () => {
  const XML_DOC = `${DECL}<Response><Say>Hi</Say></Response>`;
  const answer = (over: Partial<StartAnswerInput>): StartAnswerInput => ({
    status: 200,
    contentType: "application/xml",
    body: XML_DOC,
    ...over,
  });
  const invalid = (message: string | RegExp) => ({
    ok: false,
    code: "START_CALLBACK_INVALID",
    message: typeof message === "string" ? expect.stringContaining(message) : expect.stringMatching(message),
  });

  describe("status codes", () => {
    it.each([100, 199, 300, 301, 304, 400, 404, 429, 500, 503])("HTTP %i is START_CALLBACK_STATUS", (status) => {
      expect(interpretStartAnswer(answer({ status }))).toEqual({
        ok: false,
        code: "START_CALLBACK_STATUS",
        message: `onCallStartUrl answered HTTP ${status}`,
      });
    });

    it.each([200, 201, 202, 299])("HTTP %i with a TwiML document is used", (status) => {
      expect(interpretStartAnswer(answer({ status }))).toEqual({ ok: true, twiml: XML_DOC, form: "xml" });
    });

    it("HTTP 204 (empty) is invalid", () => {
      expect(interpretStartAnswer(answer({ status: 204, contentType: null, body: "" }))).toEqual(
        invalid("answer is empty (HTTP 204)"),
      );
    });

    it("a non-2xx answer with a valid document is still a status error", () => {
      expect(interpretStartAnswer(answer({ status: 500 }))).toMatchObject({ ok: false, code: "START_CALLBACK_STATUS" });
    });
  });

  describe("XML answers", () => {
    it.each([
      "application/xml",
      "text/xml",
      "text/xml; charset=utf-8",
      "Text/XML;charset=UTF-8",
      "application/twiml+xml",
      "text/plain",
      "text/html; charset=utf-8",
      "application/octet-stream",
      "",
      null,
    ])("Content-Type %j with a <Response> document is returned as is", (contentType) => {
      expect(interpretStartAnswer(answer({ contentType }))).toEqual({ ok: true, twiml: XML_DOC, form: "xml" });
    });

    it("drops a BOM and leading whitespace (which would break a strict parser before <?xml)", () => {
      const body = `\uFEFF\r\n  ${XML_DOC}\n`;
      expect(interpretStartAnswer(answer({ body }))).toEqual({ ok: true, twiml: `${XML_DOC}\n`, form: "xml" });
      expect(interpretStartAnswer(answer({ body: `\n\n${XML_DOC}`, contentType: null }))).toEqual({
        ok: true,
        twiml: XML_DOC,
        form: "xml",
      });
    });

    it("accepts every valid document from the table", () => {
      for (const [, xml] of validDocuments) {
        expect(interpretStartAnswer(answer({ body: xml }))).toMatchObject({ ok: true, form: "xml" });
      }
    });

    it("rejects every invalid document from the table", () => {
      for (const [label, xml] of invalidDocuments) {
        if (label === "declaration not first") continue; // leading whitespace is dropped first
        expect(interpretStartAnswer(answer({ body: xml }))).toMatchObject({
          ok: false,
          code: "START_CALLBACK_INVALID",
        });
      }
    });

    it.each<[body: string, message: string]>([
      [
        "<Say>Hi</Say>",
        "answer is not a TwiML <Response> document: root element is <Say>, expected <Response> (line 1, column 1)",
      ],
      ["<response/>", "root element is <response>, expected <Response>"],
      ["<Response><Say>a</Response></Say>", "mismatched end tag </Response>, expected </Say> (line 1, column 17)"],
      ["<Response>\n  <Say>a</Say>\n", "unclosed element <Response> (line 3, column 1)"],
      ["\n\n<Response>&nbsp;</Response>", "unknown entity &nbsp; (line 3, column 11)"],
      ['<!DOCTYPE x [<!ENTITY a "b">]><Response/>', "DOCTYPE declarations are not allowed"],
      ["<Response/><?pi?>", "processing instructions are not allowed"],
      ['<!-- x --><?xml version="1.0"?><Response/>', "the XML declaration must come first in the document"],
      ["<Response/>trailing", "content after the root element (line 1, column 12)"],
      ["<Response/><Response/>", "a second root element after </Response>"],
      ["<Response><!-- x </Response>", "unclosed comment"],
      ['<?xml version="1.0" encoding="ISO-8859-1"?><Response/>', 'encoding="ISO-8859-1"; only UTF-8 is supported'],
      ['<Response><Say a="1" a="2"/></Response>', "duplicate attribute a"],
      ["<Response>Tom & Jerry</Response>", "'&' that does not start an entity reference (write &amp;)"],
      ["<Response><Say>\u0001</Say></Response>", "character U+0001 is not allowed in XML"],
      [docOfBytes(64 * KiB + 1), "document is larger than 64 KiB"],
      ['{"twiml":"<Response/>"}', "answer is not a TwiML <Response> document: text before the root element"],
    ])("explains %j", (body, message) => {
      expect(interpretStartAnswer(answer({ body }))).toEqual(invalid(message));
    });

    it("never echoes a long customer name in full", () => {
      const result = interpretStartAnswer(answer({ body: `<${"x".repeat(5000)}/>` }));
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.message.length).toBeLessThan(200);
    });
  });

  describe("JSON answers", () => {
    const json = (value: unknown, contentType: string | null = "application/json") =>
      interpretStartAnswer(answer({ contentType, body: JSON.stringify(value) }));

    it.each([
      "application/json",
      "application/json; charset=utf-8",
      "APPLICATION/JSON",
      "application/vnd.acme+json",
      "text/plain",
      null,
    ])("Content-Type %j with { twiml } is returned as is", (contentType) => {
      expect(json({ twiml: XML_DOC }, contentType)).toEqual({ ok: true, twiml: XML_DOC, form: "json-twiml" });
    });

    it("{ twiml } with a self-closing <Response/> and leading whitespace", () => {
      expect(json({ twiml: "\n  <Response/>" })).toEqual({ ok: true, twiml: "<Response/>", form: "json-twiml" });
    });

    it("{ twiml } must be a <Response> document", () => {
      expect(json({ twiml: "<Say>Hi</Say>" })).toEqual(
        invalid("answer's `twiml` is not a TwiML <Response> document: root element is <Say>, expected <Response>"),
      );
      expect(json({ twiml: "" })).toEqual(
        invalid("answer's `twiml` is not a TwiML <Response> document: no root element"),
      );
      expect(json({ twiml: "<Response><Say>a</Response>" })).toEqual(invalid("mismatched end tag"));
      expect(json({ twiml: "<!DOCTYPE r><Response/>" })).toEqual(invalid("DOCTYPE declarations are not allowed"));
    });

    it("{ twiml } must be a string", () => {
      for (const twiml of [42, null, true, ["<Response/>"], { Response: {} }]) {
        expect(json({ twiml })).toEqual(invalid("answer's `twiml` must be a string"));
      }
    });

    it("{ actions } is built with the SDK", () => {
      expect(json({ actions: [{ say: "Hi" }, { pause: 2 }, { hangup: true }] }, null)).toEqual({
        ok: true,
        twiml: `${DECL}<Response><Say>Hi</Say><Pause length="2"/><Hangup/></Response>`,
        form: "json-actions",
      });
    });

    it("{ actions } problems are reported by index", () => {
      expect(json({ actions: [{ say: "a" }, { say: "b" }, { dial: "555-0123" }] })).toEqual(
        invalid(/^actions\[2\]\.dial must be an E\.164 number/),
      );
      expect(json({ actions: [] })).toEqual(invalid("actions must not be empty"));
      expect(json({ actions: "say hi" })).toEqual(invalid("actions must be an array"));
    });

    it("extra keys next to twiml/actions are ignored", () => {
      expect(json({ twiml: XML_DOC, debug: "v2" })).toEqual({ ok: true, twiml: XML_DOC, form: "json-twiml" });
    });

    it.each<[label: string, body: string, message: string]>([
      ["neither key", '{"say":"hi"}', "answer is JSON but has neither `twiml` nor `actions`"],
      ["empty object", "{}", "answer is JSON but has neither `twiml` nor `actions`"],
      [
        "both keys",
        `{"twiml":"<Response/>","actions":[{"hangup":true}]}`,
        "answer is JSON with both `twiml` and `actions`; send only one",
      ],
      ["array", '[{"say":"hi"}]', "answer is JSON but not an object"],
      ["null", "null", "answer is JSON but not an object"],
      ["string", '"<Response/>"', "answer is JSON but not an object"],
      ["number", "42", "answer is JSON but not an object"],
      ["truncated", '{"twiml":"<Respo', "answer is not valid JSON"],
      ["trailing garbage", '{"twiml":"<Response/>"} x', "answer is not valid JSON"],
      ["XML body", XML_DOC, "answer is not valid JSON"],
    ])("JSON %s is invalid", (_label, body, message) => {
      expect(interpretStartAnswer(answer({ contentType: "application/json", body }))).toEqual(invalid(message));
    });

    it("a JSON body without a JSON Content-Type is sniffed by its leading {", () => {
      expect(interpretStartAnswer(answer({ contentType: "text/plain", body: ' \n{"say":"hi"}' }))).toEqual(
        invalid("answer is JSON but has neither `twiml` nor `actions`"),
      );
    });

    it("an XML Content-Type wins over a JSON-looking body", () => {
      expect(
        interpretStartAnswer(answer({ contentType: "text/xml", body: JSON.stringify({ twiml: XML_DOC }) })),
      ).toEqual(invalid("answer is not a TwiML <Response> document"));
    });
  });

  describe("neither XML nor JSON", () => {
    it.each<[contentType: string | null, body: string, message: string]>([
      ["text/plain", "OK", "answer is neither a TwiML <Response> document nor JSON (Content-Type text/plain)"],
      [null, "Hangup", "answer is neither a TwiML <Response> document nor JSON (no Content-Type)"],
      ["text/html", "  hello <b>", "answer is neither a TwiML <Response> document nor JSON (Content-Type text/html)"],
      ["application/xml", "", "answer is empty (HTTP 200)"],
      ["application/json", " \r\n\t", "answer is empty (HTTP 200)"],
      [null, "\uFEFF", "answer is empty (HTTP 200)"],
    ])("%j %j", (contentType, body, message) => {
      expect(interpretStartAnswer(answer({ contentType, body }))).toEqual(invalid(message));
    });
  });
});
