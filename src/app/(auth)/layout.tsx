import type { ReactNode } from "react";
import Link from "next/link";
import { Providers } from "@/client/trpc/client";

export default function AuthLayout({ children }: { children: ReactNode }) {
  return (
    <Providers>
      <header className="px-4 pt-6 sm:px-8">
        <Link href="/" className="text-lg font-semibold tracking-tight text-slate-900 dark:text-slate-100">
          Routekit
        </Link>
      </header>
      <main className="px-4 pb-16">{children}</main>
    </Providers>
  );
}
