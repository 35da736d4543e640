import { Card } from "@/components/ui/card";

export default function Home() {
  return (
    <main className="px-4">
      <Card title="Routekit">
        <p>Voice callback routing for your Twilio numbers: when a call comes in, we ask your backend what to do, answer Twilio, tell you when the call ends, and bill by the minute.</p>
        <p>
          Start with <code className="rounded bg-slate-100 px-1">POST /api/auth/register</code>; the README has the whole API with curl examples.
        </p>
      </Card>
    </main>
  );
}
