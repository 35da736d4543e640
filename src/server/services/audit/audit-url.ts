/**
 * A customer's URL as the audit log may show it: scheme, host and path only. Its query, fragment and
 * credentials go, since customers put tokens there and the log never holds a secret (docs/decisions.md §18).
 */
export function auditUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "(not a URL)";
  }
}
