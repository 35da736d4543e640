import type { ParseArgsConfig } from "node:util";
import { Routekit } from "../client/routekit.js";
import { DEFAULT_BASE_URL } from "../client/transport.js";

/** What every command gets: the parsed arguments, the service's address and key, and where to write. */
export type CommandContext = {
  positionals: string[];
  values: Record<string, string | boolean | undefined>;
  apiKey: string | undefined;
  baseUrl: string;
  out: (line: string) => void;
  err: (line: string) => void;
  /** The typed client on the key and address above; throws a UsageError when there is no key. */
  client(): Routekit;
};

/** One `routekit <name>` command: the CLI's table (cli.ts) lists them, `--help` prints their usage. */
export type Command = {
  summary: string;
  usage: string;
  /** node:util parseArgs options beside the common ones (--api-key, --base-url, --json, --help). */
  options: NonNullable<ParseArgsConfig["options"]>;
  /** Resolves with the process's exit code. */
  run(context: CommandContext): Promise<number>;
};

/** A mistake in how the command was called: printed with the usage, exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

export const COMMON_OPTIONS = {
  "api-key": { type: "string" },
  "base-url": { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const satisfies NonNullable<ParseArgsConfig["options"]>;

export function contextFor(
  parsed: { positionals: string[]; values: Record<string, string | boolean | undefined> },
  env: Record<string, string | undefined>,
  io: { out: (line: string) => void; err: (line: string) => void },
): CommandContext {
  const apiKey = (parsed.values["api-key"] as string | undefined) ?? (env.ROUTEKIT_API_KEY || undefined);
  const baseUrl = (parsed.values["base-url"] as string | undefined) ?? (env.ROUTEKIT_BASE_URL || DEFAULT_BASE_URL);
  return {
    ...parsed,
    ...io,
    apiKey,
    baseUrl,
    client() {
      if (!apiKey) throw new UsageError("an API key is needed: set ROUTEKIT_API_KEY or pass --api-key");
      return new Routekit({ apiKey, baseUrl });
    },
  };
}
