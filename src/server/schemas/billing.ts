import { z } from "zod";

export const ZUrlOutput = z.object({ url: z.string().describe("Open in a browser; short-lived in Stripe mode") });
