import type { Metadata } from "next";
import { SignupForm } from "./signup-form";

export const metadata: Metadata = { title: "Sign up · Routekit" };

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/** Rendered on the server, so the form is in the HTML and posts before (or without) JavaScript. */
export default async function SignupPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  return (
    <SignupForm
      email={one(params.email) ?? ""}
      companyName={one(params.companyName) ?? ""}
      error={one(params.error)?.slice(0, 300) ?? null}
    />
  );
}
