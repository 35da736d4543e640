"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { signOut } from "next-auth/react";
import { useState, type ReactNode } from "react";
import { useMutation } from "@tanstack/react-query";
import { useTRPC } from "@/lib/trpc/client";
import { StatusBadge } from "@/components/ui/badge";

const NAV = [
  { href: "/dashboard", label: "Overview" },
  { href: "/dashboard/twilio", label: "Twilio" },
  { href: "/dashboard/numbers", label: "Numbers" },
  { href: "/dashboard/calls", label: "Calls" },
  { href: "/dashboard/deliveries", label: "Deliveries" },
  { href: "/dashboard/keys", label: "API keys" },
  { href: "/dashboard/billing", label: "Billing" },
  { href: "/dashboard/setup", label: "Setup guide" },
  { href: "/dashboard/settings", label: "Settings" },
];

export function DashboardShell({ email, status, children }: { email: string; status: string; children: ReactNode }) {
  const pathname = usePathname();
  const [menuOpen, setMenuOpen] = useState(false);
  const trpc = useTRPC();
  // Sign-out ends every session of the account (copied cookies included), then this browser's.
  const logout = useMutation(
    trpc.auth.logout.mutationOptions({ onSettled: () => void signOut({ callbackUrl: "/login" }) }),
  );
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
                  disabled={logout.isPending}
                  onClick={() => logout.mutate()}
                >
                  Log out
                </button>
              </div>
            </div>
          </nav>
        </div>
      </aside>
      <main className="min-w-0 flex-1 px-4 py-6 sm:px-6 lg:px-10 lg:py-8">{children}</main>
    </div>
  );
}
