import { db } from "../../db/client";
import { AppError } from "../../errors/app-error";
import { toTwilioConnectionDto } from "./twilio-connection-dto";

export async function getTwilioConnection(opts: { accountId: string }) {
  const connection = await db().twilioConnection.findUnique({ where: { accountId: opts.accountId } });
  if (!connection) throw new AppError("NOT_FOUND", "No Twilio account is connected.");
  return toTwilioConnectionDto(connection);
}
