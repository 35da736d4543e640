/**
 * The Twilio simulator in a process of its own, for benchmarks that time the server against it: run in
 * the bench's process, its work (running TwiML, sending status and recording callbacks) competes with
 * the bench's own clock for the same event loop and inflates the figures it measures.
 *
 * `startTwilioSimulatorProcess()` forks this file (through tsx, as the bench itself runs) and drives it
 * over IPC; the child, started with `--child`, serves the simulator and answers the few calls a bench needs.
 */
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { SimulatedCallPlan } from "../../src/twilio-simulator/twilio-simulator";

type Ask =
  | { op: "addAccount"; friendlyName: string }
  | { op: "addIncomingNumber"; accountSid: string; phoneNumber: string }
  | { op: "inboundCall"; call: { to: string; from: string; callSid: string } & SimulatedCallPlan }
  | { op: "isLive"; callSid: string }
  | { op: "close" };
type Answer = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

export type TwilioSimulatorProcess = {
  url: string;
  addAccount(friendlyName: string): Promise<{ sid: string; authToken: string }>;
  addIncomingNumber(accountSid: string, phoneNumber: string): Promise<void>;
  /** Starts an inbound call; it plays on in the child (see `holdMs` to keep it live). */
  inboundCall(call: { to: string; from: string; callSid: string } & SimulatedCallPlan): Promise<void>;
  /** Whether the call is in progress at the simulator (a redirect or recording reaches it). */
  isLive(callSid: string): Promise<boolean>;
  close(): Promise<void>;
};

export async function startTwilioSimulatorProcess(): Promise<TwilioSimulatorProcess> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ["--child"], { stdio: "inherit" });
  const waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  let next = 0;
  const url = await new Promise<string>((resolve, reject) => {
    child.once("message", (m) => resolve((m as { url: string }).url));
    child.once("exit", (code) => reject(new Error(`the simulator process exited with ${code}`)));
  });
  child.on("message", (m) => {
    const a = m as Answer;
    const w = waiting.get(a.id);
    waiting.delete(a.id);
    if (a.ok) w?.resolve(a.value);
    else w?.reject(new Error(a.error));
  });
  const ask = <T>(q: Ask) =>
    new Promise<T>((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      child.send({ id, ...q });
    });
  return {
    url,
    addAccount: (friendlyName) => ask({ op: "addAccount", friendlyName }),
    addIncomingNumber: (accountSid, phoneNumber) => ask({ op: "addIncomingNumber", accountSid, phoneNumber }),
    inboundCall: (call) => ask({ op: "inboundCall", call }),
    isLive: (callSid) => ask({ op: "isLive", callSid }),
    async close() {
      const exited = new Promise((r) => child.once("exit", r));
      await ask({ op: "close" }).catch(() => undefined);
      await exited;
    },
  };
}

async function serveChild(): Promise<void> {
  const { startTwilioSimulator } = await import("../../src/twilio-simulator/twilio-simulator");
  const twilio = await startTwilioSimulator({ accounts: {}, host: "127.0.0.1" });
  const played: Promise<unknown>[] = [];
  const send = (m: unknown) => process.send?.(m);
  process.on("message", async (m) => {
    const { id, ...q } = m as Ask & { id: number };
    try {
      let value: unknown = null;
      if (q.op === "addAccount") {
        const a = twilio.addAccount({ friendlyName: q.friendlyName });
        value = { sid: a.sid, authToken: a.authToken };
      } else if (q.op === "addIncomingNumber") twilio.addIncomingNumber(q.accountSid, q.phoneNumber);
      else if (q.op === "inboundCall") played.push(twilio.inboundCall(q.call).catch(() => undefined));
      else if (q.op === "isLive") value = twilio.control.get(q.callSid)?.status === "in-progress";
      else {
        await twilio.close();
        await Promise.allSettled(played);
        send({ id, ok: true, value: null });
        process.disconnect?.();
        return;
      }
      send({ id, ok: true, value });
    } catch (err) {
      send({ id, ok: false, error: String(err) });
    }
  });
  send({ url: twilio.url });
}

if (process.argv.includes("--child")) await serveChild();
