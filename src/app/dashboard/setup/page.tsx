import type { Metadata } from "next";
import { ScrollPre } from "@/components/ui/scroll-pre";
import type { ReactNode } from "react";
import { PageHeader, Panel } from "@/components/ui/card";
import { CopyField } from "@/components/ui/copy-button";
import { serverCaller } from "@/app/_trpc/rsc";
import { SimulateCall } from "../numbers/simulate-call";
import { simulatorCommandFor } from "./simulator-command";

export const metadata: Metadata = { title: "Setup guide · Routekit" };

function Code({ children, ...rest }: { children: string; "data-testid"?: string }) {
  return (
    <ScrollPre className="overflow-x-auto rounded-lg bg-slate-900 p-4 text-xs leading-relaxed text-slate-100" {...rest}>
      <code>{children}</code>
    </ScrollPre>
  );
}

function Step({ n, title, children }: { n: number; title: string; children: ReactNode }) {
  return (
    <Panel title={`${n}. ${title}`}>
      <div className="space-y-3 text-sm text-slate-700 dark:text-slate-300">{children}</div>
    </Panel>
  );
}

const SIGNATURE_EXAMPLE = `import { Webhook } from "standardwebhooks";

const wh = new Webhook(process.env.ROUTEKIT_WEBHOOK_SECRET); // "whsec_…"

app.post("/calls/end", express.raw({ type: "application/json" }), (req, res) => {
  let event;
  try {
    event = wh.verify(req.body, req.headers); // throws on a bad signature or an old timestamp
  } catch {
    return res.status(400).end();
  }
  if (alreadyProcessed(event.id)) return res.status(200).end(); // retries repeat the id
  handle(event);
  res.status(200).end();
});`;

export default async function SetupPage() {
  const caller = await serverCaller();
  const [{ account }, { phoneNumbers }, connection] = await Promise.all([
    caller.account.get(),
    caller.phoneNumbers.list(),
    // 404 when the account has none.
    caller.twilioConnection.get().then(
      (r) => r.twilioConnection,
      () => null,
    ),
  ]);
  // A viewer is not given the engine URL (a bearer secret without a Twilio connection): the steps name it instead.
  const engineUrl = account.engineVoiceUrl ?? "<engine voice URL: ask an owner, admin or developer>";
  const first = phoneNumbers.find((n) => n.isActive) ?? null;
  const simulatorCommand = simulatorCommandFor({
    engineUrl,
    to: first?.phoneNumber ?? null,
    accountSid: connection?.accountSid ?? null,
  });
  return (
    <>
      <PageHeader title="Setup guide" description="From a Twilio number to your first routed call, in five steps." />
      <div className="space-y-6">
        <Step n={1} title="Connect Twilio">
          <p>
            On the{" "}
            <a
              className="font-semibold text-indigo-600 dark:text-indigo-400 hover:text-indigo-500 dark:hover:text-indigo-300"
              href="/dashboard/twilio"
            >
              Twilio
            </a>{" "}
            page, enter your Account SID and auth token. Routekit then lists your Twilio numbers and registers and
            configures each one in a click: it proves the number is yours, sets its voice URL and status callback to
            your engine URL at Twilio, and verifies Twilio&apos;s signature on every request of every call, so nobody
            can forge a call or claim your number.
          </p>
        </Step>

        <Step n={2} title="Or point a number at Routekit by hand">
          <p>
            Without a connection, register the number under{" "}
            <a
              className="font-semibold text-indigo-600 dark:text-indigo-400 hover:text-indigo-500 dark:hover:text-indigo-300"
              href="/dashboard/numbers"
            >
              Numbers
            </a>{" "}
            with the URLs of your backend, then give Twilio your engine URL. It is a bearer secret, as sensitive as an
            API key: anyone who has it can send requests that look like calls (Routekit limits what those can do, and
            you can rotate the URL on the Twilio page), and numbers you register this way are first-come and limited to
            25.
          </p>
          <CopyField label="Engine voice URL" value={engineUrl} data-testid="engine-voice-url" />
          <p>In the Twilio console:</p>
          <ol className="list-decimal space-y-1 pl-5">
            <li>Phone Numbers → Manage → Active numbers → your number → Voice configuration.</li>
            <li>
              <strong>A call comes in</strong>: Webhook, URL = your engine URL, <strong>HTTP POST</strong>.
            </li>
            <li>
              <strong>Call status changes</strong>: the same engine URL, <strong>HTTP POST</strong>.
            </li>
            <li>Save. Calls are rejected until your account is active.</li>
          </ol>
        </Step>

        <Step n={3} title="Answer call.started from your onCallStartUrl">
          <p>
            When a call comes in we POST a signed <code>call.started</code> event to the number&apos;s call start URL
            and wait up to 5 seconds. Answer 2xx with one of:
          </p>
          <p className="font-medium">TwiML, as XML:</p>
          <Code>{`<Response><Say>Thanks for calling Acme.</Say><Dial>+14155550199</Dial></Response>`}</Code>
          <p className="font-medium">TwiML in JSON:</p>
          <Code>{`{ "twiml": "<Response><Say>Hi</Say></Response>" }`}</Code>
          <p className="font-medium">Actions, which we turn into TwiML (say, play, dial, pause, hangup):</p>
          <Code>{`{ "actions": [ { "say": "Connecting you" }, { "pause": 1 }, { "dial": "+14155550199" } ] }`}</Code>
          <p>
            Anything else, or no answer in time, gets a polite apology and a hang-up, and your error URL gets a{" "}
            <code>call.error</code>. When the call ends your call end URL gets <code>call.ended</code> with its cost
            breakdown.
          </p>
        </Step>

        <Step n={4} title="Verify our signatures">
          <p>
            Every event is signed per the Standard Webhooks spec with your signing secret (under{" "}
            <a
              className="font-semibold text-indigo-600 dark:text-indigo-400 hover:text-indigo-500 dark:hover:text-indigo-300"
              href="/dashboard/deliveries"
            >
              Deliveries
            </a>
            ). Any Standard Webhooks library verifies it; in Node.js:
          </p>
          <Code>{SIGNATURE_EXAMPLE}</Code>
          <p>
            Verify the raw body before parsing it, and use the <code>webhook-id</code> header to ignore retries you
            already handled.
          </p>
        </Step>

        <Step n={5} title="Try a call without a phone">
          {first ? (
            <>
              <p>
                Simulate a call to <span className="font-mono">{first.phoneNumber}</span>: Routekit runs the whole
                inbound flow against your call start URL, as if Twilio had called, and shows the TwiML Twilio would have
                received. Nothing is sent to Twilio and nothing is billed.
              </p>
              <SimulateCall number={first} />
            </>
          ) : (
            <p data-testid="setup-simulate-needs-number">
              Register a number under{" "}
              <a
                className="font-semibold text-indigo-600 dark:text-indigo-400 hover:text-indigo-500 dark:hover:text-indigo-300"
                href="/dashboard/numbers"
              >
                Numbers
              </a>{" "}
              first; then you can simulate a call to it here, without a phone or Twilio.
            </p>
          )}
          <p>
            To play Twilio&apos;s side of a whole call (with status callbacks and a billed duration), run the
            project&apos;s Twilio simulator from a checkout of Routekit:
          </p>
          <Code data-testid="simulator-command">{simulatorCommand}</Code>
          {connection ? (
            <p data-testid="simulator-token-hint">
              Your account is connected to Twilio ({connection.accountSid}), so Routekit checks Twilio&apos;s signature
              on every request: the simulator signs with your auth token. Replace{" "}
              <code>&lt;your Twilio auth token&gt;</code> with the auth token shown under Account info in the Twilio
              console (Routekit never shows it back).
            </p>
          ) : null}
          <p>
            The call appears under{" "}
            <a
              className="font-semibold text-indigo-600 dark:text-indigo-400 hover:text-indigo-500 dark:hover:text-indigo-300"
              href="/dashboard/calls"
            >
              Calls
            </a>{" "}
            (2 billed minutes) and its events under Deliveries. The full API is in the{" "}
            <a
              className="font-semibold text-indigo-600 dark:text-indigo-400 hover:text-indigo-500 dark:hover:text-indigo-300"
              href="/docs"
            >
              API reference
            </a>
            .
          </p>
        </Step>
      </div>
    </>
  );
}
