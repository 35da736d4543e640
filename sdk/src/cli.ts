#!/usr/bin/env node
import { parseArgs } from "node:util";
import { call } from "./commands/call.js";
import { COMMON_OPTIONS, type Command, contextFor, UsageError } from "./commands/command.js";
import { trigger } from "./commands/trigger.js";
import { listenCommand } from "./listen/command.js";
import { RoutekitConnectionError, RoutekitError } from "./errors.js";

/** The `routekit` command's table: a new command is a file under src/ and a line here. */
const COMMANDS: Record<string, Command> = { trigger, call, listen: listenCommand };

const HELP = `routekit: Routekit from your terminal

Usage: routekit <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(10)}${c.summary}`)
  .join("\n")}

Options for every command:
  --api-key <key>    An API key (default: ROUTEKIT_API_KEY)
  --base-url <url>   The service (default: ROUTEKIT_BASE_URL, else http://localhost:3000)
  --json             Print the answer as JSON
  -h, --help         This help, or a command's: routekit <command> --help`;

async function main(argv: string[]): Promise<number> {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const err = (line: string) => process.stderr.write(`${line}\n`);
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    out(HELP);
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    err(`routekit: unknown command ${name}\n\n${HELP}`);
    return 2;
  }
  try {
    const parsed = parseArgs({
      args: rest,
      options: { ...COMMON_OPTIONS, ...command.options },
      allowPositionals: true,
      strict: true,
    });
    if (parsed.values.help) {
      out(`Usage: ${command.usage}`);
      return 0;
    }
    return await command.run(contextFor(parsed, process.env, { out, err }));
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      err(`routekit ${name}: ${(error as Error).message}\n\nUsage: ${command.usage}`);
      return 2;
    }
    if (error instanceof RoutekitError) {
      err(
        `routekit ${name}: ${error.status} ${error.code}: ${error.message}${error.requestId ? ` (request ${error.requestId})` : ""}`,
      );
      for (const d of error.details) err(`  ${d.path}: ${d.message}`);
      return 1;
    }
    if (error instanceof RoutekitConnectionError) {
      err(`routekit ${name}: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

process.exitCode = await main(process.argv.slice(2));
