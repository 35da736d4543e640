import { performance } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { checkResponseDocument, isTwimlResponseDocument } from "../../src/server/services/answers/check-twiml";
import { docOfBytes, invalidDocuments, KiB, validDocuments } from "./fixtures/twiml-documents";

describe("isTwimlResponseDocument", () => {
  it.each(validDocuments)("accepts %s", (_label, xml) => {
    expect(isTwimlResponseDocument(xml)).toBe(true);
  });

  it.each(invalidDocuments)("rejects %s", (_label, xml) => {
    expect(isTwimlResponseDocument(xml)).toBe(false);
  });

  it("has fixtures of the sizes it claims", () => {
    expect(Buffer.byteLength(docOfBytes(64 * KiB))).toBe(64 * KiB);
    const utf8Heavy = invalidDocuments.find(([label]) => label.includes("UTF-8 bytes only"))![1];
    expect(utf8Heavy.length).toBeLessThan(64 * KiB);
    expect(Buffer.byteLength(utf8Heavy)).toBeGreaterThan(64 * KiB);
  });

  /** Inputs of about 60 KiB built to hurt naive scanners (backtracking, quadratic searches, recursion). */
  const N = 60 * KiB;
  const pathological: Array<[label: string, xml: string, valid: boolean]> = [
    ["many '<'", "<".repeat(N), false],
    ["unclosed comment", `<Response><!--${"-a".repeat(N / 2 - 10)}`, false],
    ["many comment openers", `<Response>${"<!--".repeat(N / 4 - 5)}`, false],
    ["many comments", `<Response>${"<!-- x -->".repeat(N / 10 - 5)}</Response>`, true],
    ["unclosed CDATA full of ]]", `<Response><![CDATA[${"]]".repeat(N / 2 - 20)}`, false],
    ["text full of ]] ]", `<Response>${"]] ]".repeat(N / 4 - 10)}</Response>`, true],
    ["deep unclosed nesting", `<Response>${"<a>".repeat(N / 3 - 10)}`, false],
    [
      "deep balanced nesting",
      `<Response><Say>${"<s>".repeat(N / 7 - 10)}${"</s>".repeat(N / 7 - 10)}</Say></Response>`,
      false,
    ],
    [
      "deep balanced valid nesting",
      `<Response><Say>${"<prosody>".repeat(N / 19 - 10)}${"</prosody>".repeat(N / 19 - 10)}</Say></Response>`,
      true,
    ],
    [
      "many attributes, all checked",
      "<Response>" +
        '<Gather input="dtmf speech" numDigits="1" timeout="5" bargeIn="true"/>'.repeat(N / 72 - 5) +
        "</Response>",
      true,
    ],
    [
      "many elements, the last one misplaced",
      `<Response>${"<Gather><Say>x</Say></Gather>".repeat(N / 28 - 10)}<Gather><Dial/></Gather></Response>`,
      false,
    ],
    [
      "many distinct attributes",
      `<Response ${Array.from({ length: 5000 }, (_, k) => `a${k}="${k}"`).join(" ")}/>`,
      false,
    ],
    [
      "many duplicate-looking attributes, one duplicate at the end",
      `<Response ${Array.from({ length: 6000 }, (_, k) => `a${k}='x'`).join(" ")} a0='y'/>`,
      false,
    ],
    ["unterminated attribute value", `<Response a="${"&amp;".repeat(N / 5 - 10)}`, false],
    ["endless character reference", `<Response>&#${"9".repeat(N - 20)};</Response>`, false],
    ["endless entity name", `<Response>&${"a".repeat(N - 20)};</Response>`, false],
    ["endless tag name", `<Response><${"a".repeat(N - 20)}`, false],
    ["endless declaration value", `<?xml version="${"1".repeat(N - 20)}`, false],
    ["many entities", `<Response>${"&amp;&#x41;".repeat(N / 11 - 5)}</Response>`, true],
    ["many self-closing tags", `<Response>${"<Pause/>".repeat(N / 8 - 5)}</Response>`, true],
    ["many mismatched-looking end tags", `<Response>${"<a></a ".repeat(N / 7 - 5)}`, false],
  ];

  // A quadratic scan of 60 KiB costs seconds; the linear check costs ~12 ms at
  // worst on a quiet core. 250 ms tells the two apart even on a loaded CI box.
  it.each(pathological)("stays linear on %s (< 250 ms)", (_label, xml, valid) => {
    expect(xml.length).toBeGreaterThan(55 * KiB);
    expect(xml.length).toBeLessThanOrEqual(64 * KiB);
    isTwimlResponseDocument(xml); // warm-up
    let best = Infinity;
    for (let run = 0; run < 5; run++) {
      const started = performance.now();
      expect(isTwimlResponseDocument(xml)).toBe(valid);
      best = Math.min(best, performance.now() - started);
    }
    expect(best).toBeLessThan(250);
  });
});

describe("checkResponseDocument explains saxes's first error in our words, where it starts", () => {
  it.each<[xml: string, reason: string]>([
    ["</Response>", "'<' that does not start a tag (line 1, column 1)"],
    ["<Response><1a/></Response>", "'<' that does not start a tag (line 1, column 11)"],
    ["<Response><Say>a</Say", "malformed end tag </Say (line 1, column 17)"],
    ["<Response><Say>a</ Say></Response>", "malformed end tag (line 1, column 17)"],
    ["<Response><Say a='1", "unterminated value of attribute a (line 1, column 16)"],
    ["<Response><Say", "unclosed start tag <Say (line 1, column 11)"],
    ['<Response><Say a="<">x</Say></Response>', "'<' inside an attribute value (line 1, column 19)"],
    ["<Response><Say loop>x</Say></Response>", "attribute loop has no '=' value (line 1, column 16)"],
    ["<Response><Say loop=2>x</Say></Response>", "attribute loop value is not quoted (line 1, column 16)"],
    ['<Response><Say a="1"b="2">x</Say></Response>', "malformed attribute in <Say>"],
    ['<Response><Say a="1" b="2" a="3">x</Say></Response>', "duplicate attribute a (line 1, column 28)"],
    ["<Response/ >", "'/' not followed by '>' in a start tag (line 1, column 10)"],
    ["<Response><!-- a -- b --></Response>", "'--' inside a comment (line 1, column 18)"],
    ["<Response><![CDATA[x</Response>", "unclosed CDATA section (line 1, column 11)"],
    ["<Response><!foo></Response>", "unexpected <! markup (line 1, column 11)"],
    ["<Response>a ]]> b</Response>", "']]>' is not allowed in text (line 1, column 13)"],
    ["<Response><Say>&amp</Say></Response>", "entity reference without ';' (write &amp; for '&') (line 1, column 16)"],
    [
      '<Response><Say a="x&y">z</Say></Response>',
      "entity reference without ';' (write &amp; for '&') (line 1, column 20)",
    ],
    ["<Response>a & b; c</Response>", "'&' that does not start an entity reference (write &amp;) (line 1, column 13)"],
    ["<Response>&#12a;</Response>", "malformed character reference (line 1, column 11)"],
    ["<Response>&#xFFFE;</Response>", "character reference to a character XML does not allow (line 1, column 11)"],
    ["<Response>a\uD83Db</Response>", "character U+D83D is not allowed in XML (line 1, column 12)"],
    ["<Response><!-- \u0007 --></Response>", "character U+0007 is not allowed in XML (line 1, column 16)"],
    ["<Response/><![CDATA[x]]>", "CDATA outside the root element (line 1, column 12)"],
    ["&amp;<Response/>", "text before the root element (line 1, column 1)"],
    ['<?xml version="2.0"?><Response/>', 'unsupported XML version "2.0"'],
    ['<?xml version="1.0" standalone="maybe"?><Response/>', 'standalone must be "yes" or "no"'],
    ['<?xml encoding="UTF-8"?><Response/>', "XML declaration must start with version"],
    ['<?xml version="1.0" foo="bar"?><Response/>', "malformed XML declaration"],
    ['<?xml-stylesheet href="a.xsl"?><Response/>', "processing instructions are not allowed (line 1, column 1)"],
    ['<?XML version="1.0"?><Response/>', "processing instructions are not allowed (line 1, column 1)"],
    ['<!DOCTYPE r SYSTEM "http://evil/x.dtd"><Response/>', "DOCTYPE declarations are not allowed (line 1, column 1)"],
    ["<Response><!DOCTYPE x></Response>", "DOCTYPE declarations are not allowed (line 1, column 11)"],
    ["<Response></Response></Response>", "content after the root element (line 1, column 22)"],
    ["<Response></Response>\n<Say/>", "a second root element after </Response> (line 2, column 1)"],
  ])("%j", (xml, reason) => {
    expect(checkResponseDocument(xml)).toEqual({ ok: false, reason: expect.stringContaining(reason) });
  });

  it("counts positions in what the customer sent, before leading whitespace was dropped", () => {
    const sent = "\n\n  <Response><Say>a</Play></Response>";
    const doc = sent.trimStart();
    expect(checkResponseDocument(doc, sent, sent.length - doc.length)).toEqual({
      ok: false,
      reason: "mismatched end tag </Play>, expected </Say> (line 3, column 19)",
    });
  });

  it("reads a 1.1 declaration with XML 1.0's character rules, as Twilio does", () => {
    expect(isTwimlResponseDocument('<?xml version="1.1"?><Response><Say>&#x1;</Say></Response>')).toBe(false);
  });
});

describe("checkResponseDocument holds the document to the rules Twilio enforces, naming the line and the rule", () => {
  it.each<[xml: string, reason: string]>([
    ["<Response>\n  <Sayy>Hello</Sayy>\n</Response>", "<Sayy> is not a TwiML element (line 2, column 3)"],
    [
      "<Response>\n  <say>Hello</say>\n</Response>",
      "<say> is not a TwiML element (names are case-sensitive: <Say>) (line 2, column 3)",
    ],
    [
      "<Response>\n  <Gather>\n    <Dial>+14155550123</Dial>\n  </Gather>\n</Response>",
      "<Dial> is not allowed inside <Gather> (line 3, column 5)",
    ],
    [
      '<Response>\n<Say loop="many">Hello</Say>\n</Response>',
      '<Say> attribute loop="many" must be a whole number (line 2, column 1)',
    ],
    ['<Response><Say lop="2">x</Say></Response>', "<Say> has no attribute lop (line 1, column 11)"],
    [
      '<Response><Gather input="dtmf voice"/></Response>',
      '<Gather> attribute input="dtmf voice" must be a space-separated list of values from: dtmf, speech',
    ],
    ['<Response><Reject reason="Busy"/></Response>', '<Reject> attribute reason="Busy" must be one of: rejected, busy'],
    [
      '<Response><Say voice="bob">x</Say></Response>',
      '<Say> attribute voice="bob" must be one of the SayVoice values Twilio accepts',
    ],
    ['<Response><Record playBeep="yes"/></Response>', '<Record> attribute playBeep="yes" must be true or false'],
    [
      "<Response><Number>+14155550123</Number></Response>",
      "<Number> is not allowed inside <Response> (line 1, column 11)",
    ],
    ["<Response><Say>a<!-- c --><Dial/></Say></Response>", "<Dial> is not allowed inside <Say> (line 1, column 27)"],
  ])("%j", (xml, reason) => {
    expect(checkResponseDocument(xml)).toEqual({ ok: false, reason: expect.stringContaining(reason) });
  });
});

describe("checkResponseDocument's memory of documents that passed", () => {
  it("gives the same verdict the second time, and never lends a pass to another document", () => {
    const good = '<?xml version="1.0" encoding="UTF-8"?><Response><Say>remembered</Say></Response>';
    const bad = '<?xml version="1.0" encoding="UTF-8"?><Response><say>remembered</say></Response>';
    for (let i = 0; i < 3; i++) {
      expect(checkResponseDocument(good)).toEqual({ ok: true });
      const refused = checkResponseDocument(bad);
      expect(refused.ok).toBe(false);
      // A refusal is worked out each time: its position is where the document sits in what was sent.
      expect(checkResponseDocument(bad, `  ${bad}`, 2)).not.toEqual(refused);
    }
  });

  it("stays bounded: hundreds of distinct documents later, the first still passes on its own merits", () => {
    const doc = (i: number) => `<Response><Say>caller ${i}</Say></Response>`;
    for (let i = 0; i < 1_000; i++) expect(checkResponseDocument(doc(i)).ok).toBe(true);
    expect(checkResponseDocument(doc(0)).ok).toBe(true);
    expect(checkResponseDocument("<Response><Dial>").ok).toBe(false);
  });
});
