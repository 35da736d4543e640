"use client";

import { usePathname, useSearchParams } from "next/navigation";
import { Badge } from "@/components/ui/badge";
import { SelectField } from "@/components/ui/field";
import { ROLE_LABELS, type Role } from "@/shared/roles";

type AccountChoice = { id: string; email: string; companyName: string | null; role: Role };

export type WhoAmI = {
  account: { id: string; email: string; companyName: string | null };
  role: Role;
  accounts: AccountChoice[];
};

/**
 * docs/decisions.md §18: the account this session acts in, the member's role in it, and, for a person in
 * several accounts, the switcher. A plain form post to /dashboard/switch-account (uncontrolled select), so it
 * works before hydration and without JavaScript; the route swaps the session and lands on the overview.
 */
export function AccountSwitcher({ me }: { me: WhoAmI }) {
  const pathname = usePathname();
  const params = useSearchParams();
  // A refused switch comes back as /dashboard?switch=refused (the route's only way to answer a form post). A fixed
  // sentence, never text from the address: a link must not be able to put its own words in the dashboard.
  const error =
    pathname === "/dashboard" && params.get("switch") === "refused"
      ? "That account could not be opened: you may no longer be a member of it."
      : null;
  const current = nameOf(me.account);
  // Two accounts may share a company name: then the option says which address it is.
  const names = me.accounts.map(nameOf);
  const label = (a: AccountChoice) =>
    `${names.filter((n) => n === nameOf(a)).length > 1 ? `${nameOf(a)} · ${a.email}` : nameOf(a)} (${ROLE_LABELS[a.role]})`;

  return (
    <section aria-label="Account" className="px-4 pb-3 text-sm lg:pb-4" data-testid="account-switcher">
      <div className="flex min-w-0 items-center gap-2">
        <p
          className="min-w-0 truncate font-medium text-slate-900 dark:text-slate-100"
          title={current}
          data-testid="current-account"
        >
          {current}
        </p>
        <Badge tone="indigo" data-testid="current-role">
          {ROLE_LABELS[me.role]}
        </Badge>
      </div>
      {me.accounts.length > 1 ? (
        // In the sidebar's 240 px the select takes the whole width, the button under it; beside it on a phone.
        <form
          method="post"
          action="/dashboard/switch-account"
          className="mt-2 flex items-end gap-2 lg:flex-col lg:items-stretch"
        >
          <SelectField
            label="Switch account"
            name="accountId"
            defaultValue={me.account.id}
            className="min-w-0 flex-1"
            data-testid="switch-account-select"
          >
            {me.accounts.map((a) => (
              <option key={a.id} value={a.id}>
                {label(a)}
              </option>
            ))}
          </SelectField>
          <button
            type="submit"
            className="shrink-0 rounded-md px-3 py-2 text-sm font-semibold text-slate-900 ring-1 ring-inset ring-slate-300 hover:bg-slate-50 dark:text-slate-100 dark:ring-slate-600 dark:hover:bg-slate-800"
          >
            Switch
          </button>
        </form>
      ) : null}
      {error ? (
        <p role="alert" className="mt-2 text-xs font-medium text-red-600 dark:text-red-400" data-testid="switch-error">
          {error}
        </p>
      ) : null}
    </section>
  );
}

function nameOf(a: { email: string; companyName: string | null }): string {
  return a.companyName?.trim() || a.email;
}
