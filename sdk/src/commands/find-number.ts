import type { Routekit } from "../client/routekit.js";
import { UsageError } from "./command.js";

const E164 = /^\+[1-9]\d{1,14}$/;

/** One of the account's numbers, named by its E.164 form or its id. */
export async function findNumber(client: Routekit, number: string) {
  if (!E164.test(number)) return (await client.phoneNumbers.get(number)).phoneNumber;
  const { phoneNumbers } = await client.phoneNumbers.list();
  const found = phoneNumbers.find((n) => n.phoneNumber === number);
  if (!found) throw new UsageError(`${number} is not one of this account's numbers`);
  return found;
}
