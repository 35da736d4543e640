/** At most `max` characters of customer-controlled text, for a message that ends up in `call.error`. */
export function excerpt(s: string, max = 80): string {
  return s.length <= max ? s : `${s.slice(0, max)}…`;
}
