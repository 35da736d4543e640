import type { TwilioConnection } from "@/generated/prisma/client";

/** The public shape: never the auth token, not even encrypted. */
export function toTwilioConnectionDto(c: Pick<TwilioConnection, "accountSid" | "friendlyName" | "connectedAt">) {
  return {
    twilioConnection: {
      accountSid: c.accountSid,
      friendlyName: c.friendlyName,
      connectedAt: c.connectedAt.toISOString(),
    },
  };
}
