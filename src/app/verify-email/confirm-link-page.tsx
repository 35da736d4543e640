import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";

/**
 * A mailed link's landing page: opening it changes nothing (mail scanners and
 * link previews open links); the button posts the token to /verify-email/confirm.
 */
export function ConfirmLinkPage(props: {
  kind: "verify" | "change";
  token: string;
  title: string;
  explanation: string;
  action: string;
  error: string | null;
  done: string | null;
}) {
  return (
    <main className="px-4 py-10">
      <Card title={props.title}>
        {props.done ? (
          <Alert tone="success" data-testid="link-done">
            {props.done}
          </Alert>
        ) : props.token ? (
          <form method="post" action="/verify-email/confirm" className="space-y-4">
            <p className="text-sm text-slate-600">{props.explanation}</p>
            <input type="hidden" name="token" value={props.token} />
            <input type="hidden" name="kind" value={props.kind} />
            {props.error ? (
              <Alert tone="error" data-testid="link-error">
                {props.error}
              </Alert>
            ) : null}
            <Button type="submit" className="w-full">
              {props.action}
            </Button>
          </form>
        ) : (
          <Alert tone="error" data-testid="link-error">
            {props.error ?? "This page needs the link from the mail."}
          </Alert>
        )}
        <p className="text-sm text-slate-600">
          <Link href="/dashboard" className="font-semibold text-indigo-600 hover:text-indigo-500">
            Go to the dashboard
          </Link>
        </p>
      </Card>
    </main>
  );
}
