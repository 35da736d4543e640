import { ButtonLink } from "@/components/ui/button";
import { Card } from "@/components/ui/card";

export default function Home() {
  return (
    <main className="px-4">
      <Card title="Routekit">
        <p>
          Voice callback routing for your Twilio numbers: when a call comes in, we ask your backend what to do, answer
          Twilio, tell you when the call ends, and bill by the minute.
        </p>
        <div className="flex flex-wrap gap-2 pt-2">
          <ButtonLink href="/signup">Sign up</ButtonLink>
          <ButtonLink href="/login" variant="secondary">
            Log in
          </ButtonLink>
          <a
            href="/docs"
            className="inline-flex items-center px-2 text-sm font-semibold text-indigo-600 dark:text-indigo-400 hover:text-indigo-500 dark:hover:text-indigo-300"
          >
            API reference
          </a>
        </div>
      </Card>
    </main>
  );
}
