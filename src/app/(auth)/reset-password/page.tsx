import type { Metadata } from "next";
import { ResetPasswordForm } from "./reset-password-form";

export const metadata: Metadata = { title: "Choose a new password · Routekit", referrer: "no-referrer" };

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/** Opening the link changes nothing (mail scanners open links); choosing the password does. */
export default async function ResetPasswordPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  return <ResetPasswordForm token={one(params.token) ?? ""} error={one(params.error)?.slice(0, 300) ?? null} />;
}
