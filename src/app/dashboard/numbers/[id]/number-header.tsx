"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { ButtonLink } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/card";
import { useTRPC } from "@/client/trpc/client";

/** The number's title and its tabs: links with the current one marked (aria-current), so each tab is its own address. */
export function NumberHeader({ id }: { id: string }) {
  const trpc = useTRPC();
  const pathname = usePathname();
  const number = useQuery(trpc.phoneNumbers.get.queryOptions({ id }));
  const base = `/dashboard/numbers/${id}`;
  const tabs = [
    { href: base, label: "Details" },
    { href: `${base}/shadow`, label: "Shadow" },
  ];
  return (
    <>
      <PageHeader
        title={number.data?.phoneNumber.phoneNumber ?? "Number"}
        description="A number Routekit answers: its callbacks, and a shadow backend to try on its real calls."
        actions={
          <ButtonLink href="/dashboard/numbers" variant="secondary" size="sm">
            All numbers
          </ButtonLink>
        }
      />
      <nav aria-label="This number" className="mb-6 border-b border-slate-200 dark:border-slate-700">
        <ul className="-mb-px flex gap-6">
          {tabs.map((t) => {
            const current = pathname === t.href;
            return (
              <li key={t.href}>
                <Link
                  href={t.href}
                  aria-current={current ? "page" : undefined}
                  data-testid={`number-tab-${t.label.toLowerCase()}`}
                  className={`inline-block border-b-2 px-1 pb-2 text-sm ${
                    current
                      ? "border-indigo-600 font-semibold text-indigo-700 dark:border-indigo-400 dark:text-indigo-300"
                      : "border-transparent text-slate-600 hover:border-slate-300 hover:text-slate-900 dark:text-slate-300 dark:hover:text-slate-100"
                  }`}
                >
                  {t.label}
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>
    </>
  );
}
