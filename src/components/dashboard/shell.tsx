"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { signOut } from "next-auth/react";
import { useState, type ReactNode } from "react";
import { StatusBadge } from "@/components/ui/badge";
import { AccountSwitcher, type WhoAmI } from "./account-switcher";
import { AlertCount } from "./alert-count";

const NAV = [
  { href: "/dashboard", label: "Overview" },
  { href: "/dashboard/twilio", label: "Twilio" },
  { href: "/dashboard/numbers", label: "Numbers" },
  { href: "/dashboard/calls", label: "Calls" },
  { href: "/dashboard/deliveries", label: "Deliveries" },
  { href: "/dashboard/endpoints", label: "Endpoints" },
  { href: "/dashboard/alerts", label: "Alerts" },
  { href: "/dashboard/keys", label: "API keys" },
  { href: "/dashboard/members", label: "Members" },
  { href: "/dashboard/audit", label: "Audit log" },
  { href: "/dashboard/billing", label: "Billing" },
  { href: "/dashboard/setup", label: "Setup guide" },
  { href: "/dashboard/settings", label: "Settings" },
  { href: "/dashboard/security", label: "Security" },
];

/**
 * `email` is the signed-in person's (beside Log out: who leaves); `me` names the account they act in, their
 * role there and their other accounts (docs/decisions.md §18).
 */
export function DashboardShell({
  email,
  status,
  me,
  children,
}: {
  email: string;
  status: string;
  me: WhoAmI;
  children: ReactNode;
}) {
  const pathname = usePathname();
  const [menuOpen, setMenuOpen] = useState(false);
  // Log out ends this browser's session (a copy of its cookie too); other browsers stay signed in.
  // Settings has "Sign out everywhere".
  const [leaving, setLeaving] = useState(false);
  const logOut = () => {
    setLeaving(true);
    void signOut({ callbackUrl: "/login?notice=signed-out" });
  };
  const isCurrent = (href: string) => (href === "/dashboard" ? pathname === href : pathname.startsWith(href));

  const links = (
    <ul className="space-y-1">
      {NAV.map((item) => (
        <li key={item.href}>
          <Link
            href={item.href}
            onClick={() => setMenuOpen(false)}
            aria-current={isCurrent(item.href) ? "page" : undefined}
            className={`block rounded-md px-3 py-2 text-sm font-medium ${isCurrent(item.href) ? "bg-indigo-50 dark:bg-indigo-950/60 text-indigo-700 dark:text-indigo-300" : "text-slate-700 dark:text-slate-300 hover:bg-slate-100 dark:hover:bg-slate-800"}`}
          >
            {item.label}
            {item.href === "/dashboard/alerts" ? <AlertCount /> : null}
          </Link>
        </li>
      ))}
      <li>
        <a
          href="/docs"
          className="block rounded-md px-3 py-2 text-sm font-medium text-slate-700 dark:text-slate-300 hover:bg-slate-100 dark:hover:bg-slate-800"
        >
          API reference
        </a>
      </li>
    </ul>
  );

  return (
    <div className="min-h-screen lg:flex">
      {/* The first tab stop: straight to the page's content, past the navigation. */}
      <a
        href="#content"
        className="sr-only focus:not-sr-only focus:fixed focus:left-3 focus:top-3 focus:z-50 focus:rounded-md focus:bg-white focus:px-4 focus:py-2 focus:text-sm focus:font-semibold focus:text-indigo-700 focus:shadow-lg focus:ring-2 focus:ring-indigo-500 dark:focus:bg-slate-900 dark:focus:text-indigo-300"
      >
        Skip to content
      </a>
      {/* The aside runs the page's full height; its contents stay in view while the page scrolls. */}
      <aside className="border-b border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 lg:w-60 lg:shrink-0 lg:border-b-0 lg:border-r">
        <div className="lg:sticky lg:top-0 lg:max-h-screen lg:overflow-y-auto">
          <div className="flex items-center justify-between px-4 py-3 lg:py-5">
            <Link href="/dashboard" className="text-lg font-semibold tracking-tight text-slate-900 dark:text-slate-100">
              Routekit
            </Link>
            <button
              type="button"
              className="rounded-md px-3 py-1.5 text-sm font-medium text-slate-700 dark:text-slate-300 ring-1 ring-slate-300 dark:ring-slate-600 lg:hidden"
              aria-expanded={menuOpen}
              aria-controls="dashboard-nav"
              onClick={() => setMenuOpen((o) => !o)}
            >
              Menu
            </button>
          </div>
          {/* Outside the collapsible menu: which account and role a page acts with is always in view. */}
          <AccountSwitcher me={me} />
          <nav
            id="dashboard-nav"
            aria-label="Dashboard"
            className={`${menuOpen ? "block" : "hidden"} px-3 pb-4 lg:block`}
          >
            {links}
            <div className="mt-6 border-t border-slate-100 dark:border-slate-800 px-3 pt-4 text-sm">
              <p className="truncate text-slate-600 dark:text-slate-400" title={email} data-testid="account-email">
                {email}
              </p>
              <div className="mt-1 flex items-center justify-between">
                <StatusBadge status={status} data-testid="account-status" />
                <button
                  type="button"
                  className="text-sm font-medium text-slate-700 dark:text-slate-300 underline-offset-2 hover:underline"
                  disabled={leaving}
                  onClick={logOut}
                >
                  Log out
                </button>
              </div>
            </div>
          </nav>
        </div>
      </aside>
      <div className="min-w-0 flex-1">
        {/* From any page: a call SID, an event id or a number goes straight to what it names (a GET form: no script needed). */}
        {/* biome-ignore lint/a11y/useSemanticElements: <search> is too new for every screen reader we support; the role says the same */}
        <form
          action="/dashboard/find"
          method="get"
          role="search"
          aria-label="Find a call, event or number"
          className="flex gap-2 border-b border-slate-200 bg-white px-4 py-2 sm:px-6 lg:px-10 dark:border-slate-700 dark:bg-slate-900"
        >
          <label htmlFor="dashboard-find" className="sr-only">
            Find a call SID, event id or number
          </label>
          <input
            id="dashboard-find"
            name="q"
            type="search"
            required
            maxLength={100}
            autoComplete="off"
            placeholder="Find a call SID, event id or number"
            data-testid="dashboard-find"
            className="block w-full min-w-0 max-w-md rounded-md border-0 bg-white px-3 py-1.5 text-sm text-slate-900 shadow-sm ring-1 ring-inset ring-slate-300 placeholder:text-slate-500 focus:ring-2 focus:ring-inset focus:ring-indigo-600 dark:bg-slate-900 dark:text-slate-100 dark:ring-slate-600 dark:placeholder:text-slate-400"
          />
          <button
            type="submit"
            className="rounded-md px-3 py-1.5 text-sm font-semibold text-slate-900 ring-1 ring-inset ring-slate-300 hover:bg-slate-50 dark:text-slate-100 dark:ring-slate-600 dark:hover:bg-slate-800"
          >
            Find
          </button>
        </form>
        <main id="content" tabIndex={-1} className="min-w-0 px-4 py-6 outline-none sm:px-6 lg:px-10 lg:py-8">
          {children}
        </main>
      </div>
    </div>
  );
}
