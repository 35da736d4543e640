import type { Metadata } from "next";
import { connection } from "next/server";
import type { ReactNode } from "react";
import "./globals.css";

export const metadata: Metadata = {
  title: "Routekit",
  description: "Voice callback routing for your Twilio numbers",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Pages render per request so Next.js can put the proxy's CSP nonce on its inline scripts (src/proxy.ts).
  await connection();
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased dark:bg-slate-950 dark:text-slate-100">
        {children}
      </body>
    </html>
  );
}
