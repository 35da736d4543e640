import type { Metadata } from "next";
import Link from "next/link";
import { ButtonLink } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/states";

export const metadata: Metadata = { title: "Not found · Routekit", robots: { index: false } };

/** The site-wide 404 (the dashboard has its own, inside its navigation): styled, with a way home. */
export default function NotFound() {
  return (
    <>
      <header className="px-4 pt-6 sm:px-8">
        <Link href="/" className="text-lg font-semibold tracking-tight text-slate-900 dark:text-slate-100">
          Routekit
        </Link>
      </header>
      <main className="mx-auto max-w-xl px-4 pt-16 pb-16">
        <h1 className="sr-only">Page not found</h1>
        <EmptyState
          title="There is no page at this address"
          data-testid="site-not-found"
          action={
            <div className="flex flex-wrap items-center justify-center gap-3">
              <ButtonLink href="/">Go to the home page</ButtonLink>
              <ButtonLink href="/dashboard" variant="secondary">
                Open the dashboard
              </ButtonLink>
            </div>
          }
        >
          The link may be old or mistyped.
        </EmptyState>
      </main>
    </>
  );
}
