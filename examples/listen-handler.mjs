// A backend for Routekit on your laptop, as the README's "Your first call in five minutes" runs it:
// every event is checked with the account's webhook secret (verifyEvent throws on a forged, altered or
// stale one), and call.started is answered with actions built by the SDK. `routekit listen` forwards
// the events here, signed exactly as in production, so this code runs unchanged behind a real URL.
import http from "node:http";
import { answer, Routekit, say, verifyEvent } from "@routekit/sdk";

const port = Number(process.env.PORT ?? 4000);
// ROUTEKIT_API_KEY and ROUTEKIT_BASE_URL, as the routekit command reads them.
const routekit = new Routekit({ apiKey: process.env.ROUTEKIT_API_KEY, baseUrl: process.env.ROUTEKIT_BASE_URL });
const { account } = await routekit.account.get();

http
  .createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    let event;
    try {
      event = verifyEvent(body, req.headers, account.webhookSecret);
    } catch (error) {
      console.log(`refused: ${error.message}`);
      res.writeHead(400).end();
      return;
    }
    console.log(`verified ${event.type} for call ${event.data.callSid}`);
    if (event.type === "call.started") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(answer(say(`Hello from my laptop. You called ${event.data.to}.`))));
      return;
    }
    res.writeHead(204).end();
  })
  .listen(port, () => console.log(`handler listening on http://localhost:${port}`));
