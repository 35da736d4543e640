import { describe, expect, it } from "vitest";
import { type DiffLine, lineDiff, sideBySide } from "../../src/shared/line-diff";
import { prettyTwiml } from "../../src/shared/pretty-twiml";

/** The diff written as a unified diff's lines: "  same", "- removed", "+ added". */
const unified = (d: DiffLine[]) =>
  d.map((l) => `${l.kind === "same" ? " " : l.kind === "removed" ? "-" : "+"} ${l.text}`);

describe("lineDiff", () => {
  it("finds nothing to change between equal documents, and numbers both sides' lines", () => {
    expect(lineDiff(["a", "b"], ["a", "b"])).toEqual([
      { kind: "same", text: "a", a: 1, b: 1 },
      { kind: "same", text: "b", a: 2, b: 2 },
    ]);
    expect(lineDiff([], [])).toEqual([]);
  });

  it("marks lines only in the first as removed and lines only in the second as added", () => {
    expect(unified(lineDiff(["a", "b", "c"], ["a", "x", "c"]))).toEqual(["  a", "- b", "+ x", "  c"]);
    expect(unified(lineDiff([], ["a"]))).toEqual(["+ a"]);
    expect(unified(lineDiff(["a"], []))).toEqual(["- a"]);
  });

  it("keeps the longest run of common lines, whatever their position", () => {
    const a = ["<Response>", "<Say>Hi</Say>", "<Pause/>", "<Dial>1</Dial>", "</Response>"];
    const b = ["<Response>", "<Pause/>", "<Dial>1</Dial>", "<Hangup/>", "</Response>"];
    expect(unified(lineDiff(a, b))).toEqual([
      "  <Response>",
      "- <Say>Hi</Say>",
      "  <Pause/>",
      "  <Dial>1</Dial>",
      "+ <Hangup/>",
      "  </Response>",
    ]);
  });

  it("gives each line its own number on its own side, past the changes too", () => {
    const d = lineDiff(["a", "b", "c", "d"], ["a", "x", "y", "c", "d"]);
    expect(d.find((l) => l.text === "c")).toEqual({ kind: "same", text: "c", a: 3, b: 4 });
    expect(d.find((l) => l.text === "d")).toEqual({ kind: "same", text: "d", a: 4, b: 5 });
    expect(d.filter((l) => l.kind === "added").map((l) => l.kind === "added" && l.b)).toEqual([2, 3]);
  });

  it("always accounts for every line of both sides, in order", () => {
    const a = "the quick brown fox jumps over the lazy dog".split(" ");
    const b = "a quick red fox leaps over the dog again".split(" ");
    const d = lineDiff(a, b);
    expect(d.filter((l) => l.kind !== "added").map((l) => l.text)).toEqual(a);
    expect(d.filter((l) => l.kind !== "removed").map((l) => l.text)).toEqual(b);
    expect(d.filter((l) => l.kind === "same").map((l) => l.text)).toEqual(["quick", "fox", "over", "the", "dog"]);
  });

  it("past its budget, shows a huge middle as all removed then all added, still every line", () => {
    const a = Array.from({ length: 2_500 }, (_, i) => `a${i}`);
    const b = Array.from({ length: 2_500 }, (_, i) => `b${i}`);
    const d = lineDiff(["head", ...a, "tail"], ["head", ...b, "tail"]);
    expect(d).toHaveLength(5_002);
    expect(d[0]).toEqual({ kind: "same", text: "head", a: 1, b: 1 });
    expect(d[1]).toEqual({ kind: "removed", text: "a0", a: 2 });
    expect(d[2_501]).toEqual({ kind: "added", text: "b0", b: 2 });
    expect(d.at(-1)).toEqual({ kind: "same", text: "tail", a: 2_502, b: 2_502 });
  });
});

describe("sideBySide", () => {
  it("pairs each run of removed lines with the added lines after it, padding the shorter side", () => {
    const rows = sideBySide(lineDiff(["a", "b", "c", "d"], ["a", "x", "d", "e"]));
    expect(rows.map((r) => [r.a?.text ?? null, r.b?.text ?? null])).toEqual([
      ["a", "a"],
      ["b", "x"],
      ["c", null],
      ["d", "d"],
      [null, "e"],
    ]);
    expect(rows[1]).toEqual({ a: { kind: "removed", text: "b", a: 2 }, b: { kind: "added", text: "x", b: 2 } });
  });
});

describe("prettyTwiml", () => {
  it("puts one element a line, indented, with text inline and attributes sorted", () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?><Response><Gather numDigits="1" action="/menu"><Say voice="alice" language="en-US">Press   1
      for sales</Say></Gather><Hangup></Hangup></Response>`;
    expect(prettyTwiml(xml)).toEqual([
      "<Response>",
      '  <Gather action="/menu" numDigits="1">',
      '    <Say language="en-US" voice="alice">Press 1 for sales</Say>',
      "  </Gather>",
      "  <Hangup/>",
      "</Response>",
    ]);
  });

  it("lays out two documents that differ only in layout, comments and attribute order the same", () => {
    const a = `<Response>\n  <Dial timeout="10" callerId="+14155550100">+14155550123</Dial>\n</Response>`;
    const b = `<Response><!-- v2 --><Dial callerId="+14155550100"   timeout="10"><![CDATA[+14155550123]]></Dial></Response>`;
    expect(prettyTwiml(a)).toEqual(prettyTwiml(b));
    expect(lineDiff(prettyTwiml(a), prettyTwiml(b)).every((l) => l.kind === "same")).toBe(true);
  });

  it("escapes what it writes back, so the text reads as the XML it was", () => {
    expect(prettyTwiml(`<Response><Say a="x &quot;y&quot; &amp; z">1 &lt; 2 &amp; 3</Say></Response>`)).toEqual([
      "<Response>",
      '  <Say a="x &quot;y&quot; &amp; z">1 &lt; 2 &amp; 3</Say>',
      "</Response>",
    ]);
  });

  it("keeps text beside elements on its own line", () => {
    expect(prettyTwiml("<Response><Dial>+1415<Number>+1</Number></Dial></Response>")).toEqual([
      "<Response>",
      "  <Dial>",
      "    +1415",
      "    <Number>+1</Number>",
      "  </Dial>",
      "</Response>",
    ]);
  });

  it("shows what is not well-formed XML as it came, trimmed line by line", () => {
    expect(prettyTwiml("<Response><Say>unclosed\n  </Response>\n\n")).toEqual([
      "<Response><Say>unclosed",
      "</Response>",
    ]);
    expect(prettyTwiml('{"actions":[]}')).toEqual(['{"actions":[]}']);
    expect(prettyTwiml("")).toEqual([]);
  });
});
