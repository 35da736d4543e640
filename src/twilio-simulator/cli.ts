/**
 * Command line for the local Twilio simulator, so a new developer can watch a whole call go through
 * Routekit without a Twilio account:  npx tsx src/twilio-simulator/cli.ts --help
 */
import { parseArgs } from "node:util";
import { E164 } from "../shared/schemas/e164";
import { TERMINAL_CALL_STATUSES } from "../shared/schemas/enums";
import {
  SIMULATOR_ACCOUNT_SID,
  simulateInboundCall,
  startTwilioSimulator,
  type PlayedCall,
  type SimulatedCallPlan,
  type SimulatorEvent,
} from "./twilio-simulator";
import { BACKEND_HELP, backendCommand } from "./customer-backend";
import { CALL_ENDING_HELP, CALL_ENDING_OPTIONS, callEndingFromOptions } from "./call-endings";

const HELP = `Local Twilio simulator for Routekit

Usage:
  npx tsx src/twilio-simulator/cli.ts serve [options]
  npx tsx src/twilio-simulator/cli.ts inbound <engineVoiceUrl> --from <E.164> --to <E.164> [options]
  npx tsx src/twilio-simulator/cli.ts backend [--mode hang|500|invalid-xml|slow|reset-first|ok]
  npx tsx src/twilio-simulator/cli.ts --help

serve    Runs a fake of Twilio's REST API (POST /2010-04-01/Accounts/{AccountSid}/Calls.json).
         Each call Routekit creates is then played back like Twilio would: status callbacks and
         the answer request, signed with X-Twilio-Signature. Start Routekit with
         TWILIO_API_BASE_URL=<the printed URL> to use it.
  --port <n>               port to listen on (default 3001; 0 = any free port)
  --host <addr>            address to bind (default 127.0.0.1)
  --account <AC…:token>    an account the fake accepts; repeat for several. Callbacks for its calls
                           are signed with that token. Without any --account the fake accepts ANY
                           AccountSid/AuthToken pair (nothing is authenticated; local use only) and
                           signs each call's callbacks with the token it was created with.
  --number <AC…:+1…>       an incoming number of an --account (repeat for several), for a Twilio
                           connection to list and set up (GET/POST …/IncomingPhoneNumbers)
  --duration <s>           CallDuration reported for answered calls (default 5)
  --outcome <status>       completed | busy | no-answer | failed | canceled (default completed)
  --answered-by <value>    AnsweredBy sent with the answer (default: "human" when MachineDetection
                           was requested, otherwise none)
  --step-delay <ms>        pause between the steps of a call (default 20)
  --hold <s>               keep each answered call up to s seconds, until Routekit's live-call commands
                           (hang up, redirect, transfer, recording) or its TwiML end it; dials connect,
                           and recordings complete when stopped (default: calls end right after answering)
  --ring <s>               let each outbound call ring s seconds before its outcome, so a hang-up finds it
                           ringing (it then ends canceled); past the call's Timeout it ends no-answer
${CALL_ENDING_HELP}

inbound  Plays one inbound call against a Routekit engine voice URL, used as both the number's
         voice URL and its status callback URL, as Twilio does, and prints what Routekit answered.
  --from <E.164>           caller (required)
  --to <E.164>             the Routekit number called (required)
  --duration <s>           CallDuration reported when the call completes (default 5)
  --outcome <status>       final status if Routekit does not reject the call (default completed)
  --token <authToken>      the Twilio auth token to sign with (default: a random one). Routekit checks
                           X-Twilio-Signature where it holds a token: outbound calls, and every call of
                           an account that connected Twilio (then pass that account's --account and
                           --token); other inbound calls are accepted whatever the token.
  --account <AC…>          AccountSid sent with the call (default ${SIMULATOR_ACCOUNT_SID})
  --call-sid <CA…>         CallSid to use (default: a fresh one)
  --step-delay <ms>        pause between the steps (default 20)
${CALL_ENDING_HELP}

${BACKEND_HELP}

Exit status: 0 when every request of an inbound call got a 2xx, 1 otherwise, 2 on bad usage.

Example:
  npx tsx src/twilio-simulator/cli.ts serve --port 3001
  TWILIO_API_BASE_URL=http://localhost:3001 npm run dev
  npx tsx src/twilio-simulator/cli.ts inbound http://localhost:3000/api/engine/voice/<token> \\
      --from +14155550100 --to +14155550123 --duration 61 --token <authToken>
`;

class UsageError extends Error {}

const OUTCOMES = TERMINAL_CALL_STATUSES;

function intOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be a whole number ≥ 0, got "${value}"`);
  return n;
}

function planFrom(values: {
  duration?: string;
  outcome?: string;
  "answered-by"?: string;
  "step-delay"?: string;
  "lose-final-status"?: boolean;
  "sip-code"?: string;
  "error-code"?: string;
}): SimulatedCallPlan {
  const plan: SimulatedCallPlan = callEndingFromOptions(values, (m) => new UsageError(m));
  const duration = intOption("duration", values.duration);
  const stepDelay = intOption("step-delay", values["step-delay"]);
  if (duration !== undefined) plan.durationSeconds = duration;
  if (stepDelay !== undefined) plan.stepDelayMs = stepDelay;
  if (values["answered-by"] !== undefined) plan.answeredBy = values["answered-by"];
  if (values.outcome !== undefined) {
    const outcome = OUTCOMES.find((o) => o === values.outcome);
    if (!outcome) throw new UsageError(`--outcome must be one of ${OUTCOMES.join(", ")}, got "${values.outcome}"`);
    plan.outcome = outcome;
  }
  return plan;
}

/** `--hold <s>`: answered calls stay live (simulated-calls.ts) for at most that long. */
function holdOption(value: string | undefined): Pick<SimulatedCallPlan, "holdMs"> {
  const seconds = intOption("hold", value);
  return seconds === undefined ? {} : { holdMs: seconds * 1000 };
}

/** `--ring <s>`: outbound calls ring that long before their outcome (call-playback.ts). */
function ringOption(value: string | undefined): Pick<SimulatedCallPlan, "ringMs"> {
  const seconds = intOption("ring", value);
  return seconds === undefined ? {} : { ringMs: seconds * 1000 };
}

function indent(text: string, prefix = "      "): string {
  return text
    .trim()
    .split("\n")
    .map((line) => prefix + line)
    .join("\n");
}

function time(): string {
  return new Date().toISOString().slice(11, 23);
}

function describeRequest(e: Extract<SimulatorEvent, { type: "request" }>): string {
  const label =
    e.kind === "voice"
      ? "voice request (CallStatus=ringing)"
      : e.kind === "answer"
        ? `answer request (CallStatus=in-progress${e.params.AnsweredBy ? `, AnsweredBy=${e.params.AnsweredBy}` : ""})`
        : `status callback #${e.params.SequenceNumber} CallStatus=${e.params.CallStatus}` +
          (e.params.CallDuration !== undefined ? ` CallDuration=${e.params.CallDuration}` : "");
  const outcome = e.error
    ? `no answer (${e.error})`
    : `HTTP ${e.status} in ${e.ms} ms${e.contentType ? ` (${e.contentType})` : ""}`;
  const lines = [`  → ${label} to ${e.url}`, `    ← ${outcome}`];
  if (e.kind !== "status" && e.body) lines.push(indent(e.body));
  else if (e.status >= 300 && e.body) lines.push(indent(e.body.slice(0, 500)));
  return lines.join("\n");
}

function logEvent(e: SimulatorEvent): void {
  switch (e.type) {
    case "call-created": {
      const events = e.params.StatusCallbackEvent;
      console.log(
        `\n[${time()}] Calls.create ${e.callSid} (account ${e.accountSid})\n` +
          `  To=${String(e.params.To)} From=${String(e.params.From)}\n` +
          `  Url=${String(e.params.Url ?? "(inline Twiml)")}\n` +
          `  StatusCallback=${String(e.params.StatusCallback ?? "(none)")} events=${Array.isArray(events) ? events.join(",") : "completed (default)"}` +
          (e.params.MachineDetection ? ` MachineDetection=${String(e.params.MachineDetection)}` : "") +
          `\n  plan: outcome=${e.plan.outcome ?? "completed"} duration=${e.plan.durationSeconds ?? 5}s` +
          (e.plan.ringMs ? ` ring=${e.plan.ringMs / 1000}s` : ""),
      );
      return;
    }
    case "api-error":
      console.log(`\n[${time()}] ${e.method} ${e.path} → ${e.status} (Twilio error ${e.code}: ${e.message})`);
      return;
    case "request":
      console.log(`[${time()}] ${e.callSid}\n${describeRequest(e)}`);
      return;
    case "call-ended":
      console.log(`[${time()}] ${e.played.callSid} ended\n`);
      return;
  }
}

async function serve(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      account: { type: "string", multiple: true },
      number: { type: "string", multiple: true },
      duration: { type: "string" },
      outcome: { type: "string" },
      "answered-by": { type: "string" },
      "step-delay": { type: "string" },
      ...CALL_ENDING_OPTIONS,
      hold: { type: "string" },
      ring: { type: "string" },
    },
  });
  if (positionals.length > 0) throw new UsageError(`serve takes no arguments, got "${positionals.join(" ")}"`);
  const accounts: Record<string, string> = {};
  for (const pair of values.account ?? []) {
    const m = /^(AC[0-9a-fA-F]{32}):(.+)$/.exec(pair);
    if (!m?.[1] || !m[2]) throw new UsageError(`--account must look like AC<32 hex>:<authToken>, got "${pair}"`);
    accounts[m[1]] = m[2];
  }
  const numbers: [string, string][] = [];
  for (const pair of values.number ?? []) {
    const m = /^(AC[0-9a-fA-F]{32}):(.+)$/.exec(pair);
    if (!m?.[1] || !m[2] || !E164.test(m[2]))
      throw new UsageError(`--number must look like AC<32 hex>:+1…, got "${pair}"`);
    if (!accounts[m[1]]) throw new UsageError(`--number ${pair}: give its account with --account ${m[1]}:<authToken>`);
    numbers.push([m[1], m[2]]);
  }
  const acceptAnyCredentials = Object.keys(accounts).length === 0;
  const sim = await startTwilioSimulator({
    accounts,
    acceptAnyCredentials,
    port: intOption("port", values.port) ?? 3001,
    host: values.host ?? "127.0.0.1",
    defaultPlan: { ...planFrom(values), ...holdOption(values.hold), ...ringOption(values.ring) },
    onEvent: logEvent,
  });
  for (const [accountSid, phoneNumber] of numbers) sim.addIncomingNumber(accountSid, phoneNumber);
  const publicUrl = sim.url.replace("//127.0.0.1:", "//localhost:");
  console.log(`Twilio simulator listening on ${publicUrl}`);
  console.log(
    acceptAnyCredentials
      ? "  Credentials: ANY AccountSid/AuthToken pair is accepted (nothing is authenticated; local use only).\n" +
          "  Callbacks are signed with the auth token each call was created with. Pass --account AC…:token to check credentials."
      : `  Accounts: ${Object.keys(accounts).join(", ")}` +
          (numbers.length ? `\n  Numbers: ${numbers.map(([a, n]) => `${n} (${a})`).join(", ")}` : ""),
  );
  console.log(
    `\nStart Routekit against it:\n  TWILIO_API_BASE_URL=${publicUrl} npm run dev\n\nWaiting for calls… (Ctrl-C to stop)`,
  );

  const stop = () => {
    console.log("\nStopping…");
    void sim.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

function summarize(played: PlayedCall): boolean {
  let ok = true;
  const answer = played.answer;
  console.log("");
  if (answer === null) {
    console.log("No voice request was made.");
    ok = false;
  } else {
    ok &&= answer.status >= 200 && answer.status < 300;
  }
  for (const cb of played.statusCallbacks) ok &&= cb.httpStatus >= 200 && cb.httpStatus < 300;
  const final = played.statusCallbacks.at(-1)?.status ?? "(no status callback)";
  console.log(
    `Result: call ${played.callSid} ended ${final}; Routekit ${ok ? "answered every request with 2xx" : "did NOT answer every request with 2xx"}.`,
  );
  if (answer && answer.status === 403) {
    console.log(
      "Hint: a 403 means the signature did not verify: Routekit holds a token for this call (an outbound call); pass it with --token.",
    );
  }
  return ok;
}

async function inbound(args: string[]): Promise<boolean> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      from: { type: "string" },
      to: { type: "string" },
      duration: { type: "string" },
      outcome: { type: "string" },
      token: { type: "string" },
      account: { type: "string" },
      "call-sid": { type: "string" },
      "step-delay": { type: "string" },
      ...CALL_ENDING_OPTIONS,
    },
  });
  const [engineUrl, ...extra] = positionals;
  if (!engineUrl)
    throw new UsageError("inbound needs the engine voice URL, e.g. http://localhost:3000/api/engine/voice/<token>");
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(" ")}`);
  try {
    new URL(engineUrl);
  } catch {
    throw new UsageError(`not a URL: ${engineUrl}`);
  }
  if (!values.from || !values.to) throw new UsageError("inbound needs --from and --to (E.164, e.g. +14155550100)");

  console.log(`Inbound call from ${values.from} to ${values.to} → ${engineUrl}`);
  const played = await simulateInboundCall({
    engineUrl,
    from: values.from,
    to: values.to,
    ...(values.token ? { authToken: values.token } : {}),
    ...(values.account ? { accountSid: values.account } : {}),
    ...(values["call-sid"] ? { callSid: values["call-sid"] } : {}),
    ...planFrom(values),
    onEvent: (e) => {
      if (e.type === "request") console.log(`\n${describeRequest(e)}`);
    },
  });
  return summarize(played);
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (
    command === undefined ||
    command === "--help" ||
    command === "-h" ||
    command === "help" ||
    rest.includes("--help") ||
    rest.includes("-h")
  ) {
    console.log(HELP);
    return command === undefined ? 2 : 0;
  }
  try {
    if (command === "serve") {
      await serve(rest);
      return -1; // keeps running until a signal
    }
    if (command === "inbound") return (await inbound(rest)) ? 0 : 1;
    if (command === "backend") {
      const { values } = parseArgs({
        args: rest,
        options: {
          mode: { type: "string" },
          delay: { type: "string" },
          port: { type: "string" },
          host: { type: "string" },
        },
      });
      await backendCommand(values).catch((err: unknown) => {
        throw err instanceof RangeError ? new UsageError(err.message) : err;
      });
      return -1; // keeps running until a signal
    }
    throw new UsageError(`unknown command "${command}"`);
  } catch (err) {
    // parseArgs reports unknown or malformed options with a TypeError carrying an ERR_PARSE_ARGS_* code.
    const parseError =
      err instanceof TypeError && String((err as { code?: unknown }).code).startsWith("ERR_PARSE_ARGS");
    if (err instanceof UsageError || parseError) {
      console.error(`error: ${(err as Error).message}\nRun with --help for usage.`);
      return 2;
    }
    throw err;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  },
);
