import type { Metadata } from "next";
import { TWO_FACTOR_PROMPT, TWO_FACTOR_REQUIRED } from "@/shared/second-factor";
import { LoginForm } from "./login-form";

export const metadata: Metadata = { title: "Log in · Routekit" };

/** next-auth's own error codes, for when it fails before our procedure answers. */
const NEXT_AUTH_ERRORS: Record<string, string> = {
  CredentialsSignin: "Invalid email or password.",
  [TWO_FACTOR_REQUIRED]: TWO_FACTOR_PROMPT,
  SessionRequired: "Log in to continue.",
};

/** Notices other pages send people here with. */
const NOTICES: Record<string, string> = {
  "password-reset": "Your password is changed and every session has ended. Log in with the new password.",
  "email-changed": "Your email address is changed and every session has ended. Log in with the new address.",
  "password-changed": "Your password is changed and every session has ended. Log in with the new password.",
  deleted: "Your account is closed.",
  "joined-two-factor": "You joined the account. Log in with your second factor to open it.",
  "signed-out": "You are logged out of this browser. Other browsers stay signed in until they log out.",
  "signed-out-everywhere":
    "You are signed out everywhere: every browser and every login token of this account has ended. API keys keep working.",
};

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/** Rendered on the server, so the form is in the HTML and posts before (or without) JavaScript. */
export default async function LoginPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const error = one(params.error);
  return (
    <LoginForm
      callbackUrl={one(params.callbackUrl) ?? null}
      email={one(params.email) ?? ""}
      error={error ? (NEXT_AUTH_ERRORS[error] ?? error.slice(0, 300)) : null}
      notice={NOTICES[one(params.notice) ?? ""] ?? null}
      twoFactor={one(params.twoFactor) === "1" || error === TWO_FACTOR_REQUIRED}
    />
  );
}
