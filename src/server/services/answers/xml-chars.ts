import { isChar } from "xmlchars/xml/1.0/ed5.js";

/**
 * Index of the first code unit in s[from, to) that is not part of an XML 1.0 `Char` (controls,
 * lone surrogates, U+FFFE/U+FFFF), or -1. A surrogate pair at `to - 1` is read whole.
 */
export function firstInvalidXmlChar(s: string, from = 0, to = s.length): number {
  for (let k = from; k < to; ) {
    const c = s.charCodeAt(k);
    // The common case (printable BMP below the surrogates) without a function call.
    if (c >= 0x20 && c < 0xd800) {
      k++;
      continue;
    }
    const cp = s.codePointAt(k)!;
    if (!isChar(cp)) return k;
    k += cp > 0xffff ? 2 : 1;
  }
  return -1;
}
