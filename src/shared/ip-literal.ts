import ipaddr from "ipaddr.js";

/**
 * `isIP` from node:net, without node:net: the callback URL policy runs in the
 * dashboard's browser bundle too (inline validation with the API's own
 * schemas). ipaddr.js owns the grammar; a unit test holds this function equal
 * to node:net's on a corpus of addresses.
 */
export function isIP(text: string): 0 | 4 | 6 {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return 4;
  if (ipaddr.IPv6.isValid(text)) return 6;
  return 0;
}
