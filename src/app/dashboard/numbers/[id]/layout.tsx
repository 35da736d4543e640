import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { HydrateClient, getQueryClient, trpc } from "@/app/_trpc/rsc";
import { toErrorResponse } from "@/server/errors/to-error-response";
import { NumberHeader } from "./number-header";

/** One number's pages (its details, its shadow): the number is read once here, and an unknown id is the 404 page. */
export default async function NumberLayout({
  children,
  params,
}: {
  children: ReactNode;
  params: Promise<{ id: string }>;
}) {
  const { id } = await params;
  try {
    await getQueryClient().fetchQuery(trpc.phoneNumbers.get.queryOptions({ id }));
  } catch (err) {
    // Another account's number is 404 as an unknown one is; a malformed id is 400.
    const { status } = toErrorResponse(err);
    if (status === 404 || status === 400) notFound();
    throw err;
  }
  return (
    <HydrateClient>
      <NumberHeader id={id} />
      {children}
    </HydrateClient>
  );
}
