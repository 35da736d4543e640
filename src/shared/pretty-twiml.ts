/**
 * A TwiML document laid out one element a line, for reading two of them side by side (docs/decisions.md §23).
 * What does not change what Twilio does is taken out, so a diff shows only what does: the XML declaration,
 * comments, whitespace between elements and around text, and the order of attributes (sorted). An element
 * holding only text stays on one line. Text that is not well-formed XML is shown as it came, line by line,
 * trimmed. For display only: whether two answers are the same is the server's comparison, not this one.
 */
import { SaxesParser } from "saxes";

type Element = { name: string; attributes: [string, string][]; children: (Element | string)[] };

const INDENT = "  ";

export function prettyTwiml(text: string): string[] {
  const root = parse(text);
  if (!root) return asLines(text);
  const lines: string[] = [];
  print(root, 0, lines);
  return lines;
}

function asLines(text: string): string[] {
  const lines = text
    .split(/\r\n|\r|\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "");
  return lines;
}

function parse(text: string): Element | null {
  const parser = new SaxesParser();
  const stack: Element[] = [];
  let root: Element | null = null;
  let failed = false;
  const addText = (t: string) => {
    const parent = stack.at(-1);
    if (parent) parent.children.push(t);
  };
  parser.on("error", () => {
    failed = true;
  });
  parser.on("opentag", (tag) => {
    const el: Element = {
      name: tag.name,
      attributes: Object.entries(tag.attributes as Record<string, string>).sort(([x], [y]) =>
        x < y ? -1 : x > y ? 1 : 0,
      ),
      children: [],
    };
    const parent = stack.at(-1);
    if (parent) parent.children.push(el);
    else root ??= el;
    stack.push(el);
  });
  parser.on("closetag", () => {
    stack.pop();
  });
  parser.on("text", addText);
  parser.on("cdata", addText);
  try {
    parser.write(text.replace(/^\uFEFF/, "")).close();
  } catch {
    failed = true;
  }
  return failed ? null : root;
}

/** Runs of text joined (text and CDATA may arrive in pieces) and squeezed; empty ones dropped. */
function children(el: Element): (Element | string)[] {
  const out: (Element | string)[] = [];
  let text = "";
  const flush = () => {
    const t = text.replace(/\s+/g, " ").trim();
    if (t !== "") out.push(t);
    text = "";
  };
  for (const c of el.children) {
    if (typeof c === "string") text += c;
    else {
      flush();
      out.push(c);
    }
  }
  flush();
  return out;
}

function print(el: Element, depth: number, lines: string[]): void {
  const pad = INDENT.repeat(depth);
  const attrs = el.attributes.map(([k, v]) => ` ${k}="${escapeAttribute(v)}"`).join("");
  const kids = children(el);
  if (kids.length === 0) {
    lines.push(`${pad}<${el.name}${attrs}/>`);
    return;
  }
  if (kids.length === 1 && typeof kids[0] === "string") {
    lines.push(`${pad}<${el.name}${attrs}>${escapeText(kids[0])}</${el.name}>`);
    return;
  }
  lines.push(`${pad}<${el.name}${attrs}>`);
  for (const k of kids) {
    if (typeof k === "string") lines.push(`${pad}${INDENT}${escapeText(k)}`);
    else print(k, depth + 1, lines);
  }
  lines.push(`${pad}</${el.name}>`);
}

function escapeText(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function escapeAttribute(s: string): string {
  return escapeText(s).replace(/"/g, "&quot;");
}
