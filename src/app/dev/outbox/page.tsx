import type { Metadata } from "next";
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { Fragment } from "react";
import { listOutbox, outboxDir } from "@/server/email/outbox";
import { outboxVisibleTo } from "@/server/email/outbox-access";
import { SOCKET_IP_HEADER } from "@/server/http/client-ip";

export const metadata: Metadata = { title: "Outbox (development) · Routekit", robots: { index: false } };

/** Links in a plain-text mail, clickable. */
function Linked({ text }: { text: string }) {
  const parts = text.split(/(https?:\/\/\S+)/g);
  return (
    <>
      {parts.map((part, i) =>
        /^https?:\/\//.test(part) ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed message, never reordered
          <a key={i} href={part} className="break-all text-indigo-700 underline">
            {part}
          </a>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed message, never reordered
          <Fragment key={i}>{part}</Fragment>
        ),
      )}
    </>
  );
}

/** The mail this development box would have sent (no SMTP_URL): see outbox-access.ts for who may look. */
export default async function OutboxPage() {
  const h = await headers();
  if (!outboxVisibleTo({ socketIp: h.get(SOCKET_IP_HEADER), host: h.get("host") })) notFound();
  const mails = await listOutbox(50);
  return (
    <main className="mx-auto max-w-3xl space-y-4 px-4 py-8">
      <h1 className="text-xl font-semibold">Outbox</h1>
      <p className="text-sm text-slate-600">
        No <code>SMTP_URL</code> is set, so mail is written to <code className="break-all">{outboxDir()}</code> instead
        of being sent. This page exists only on a development box (a loopback address, no SMTP) and only for a browser
        on this machine. Newest first.
      </p>
      {mails.length === 0 ? <p data-testid="outbox-empty">No mail yet.</p> : null}
      {mails.map((m) => (
        <article
          key={m.id}
          className="rounded-lg bg-white p-4 shadow-sm ring-1 ring-slate-200"
          data-testid="outbox-mail"
        >
          <h2 className="font-semibold">{m.subject}</h2>
          <p className="text-sm text-slate-600">
            To <span data-testid="outbox-to">{m.to}</span> ·{" "}
            {new Date(m.createdAt).toISOString().replace("T", " ").slice(0, 19)} UTC
          </p>
          <pre className="mt-3 whitespace-pre-wrap break-words text-sm">
            <Linked text={m.text} />
          </pre>
        </article>
      ))}
    </main>
  );
}
