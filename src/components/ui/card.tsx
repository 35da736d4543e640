import type { ReactNode } from "react";

export function Card({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="mx-auto mt-16 max-w-lg rounded-xl border border-slate-200 bg-white p-8 shadow-sm">
      <h1 className="mb-4 text-2xl font-semibold tracking-tight">{title}</h1>
      <div className="space-y-3 text-slate-700">{children}</div>
    </section>
  );
}
