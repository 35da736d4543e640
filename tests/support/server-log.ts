import { readFileSync } from "node:fs";

/**
 * Lines of a built server's log (stdout and stderr together) that are not the
 * JSON logger's: an error printed around the logger, say. Next.js's own
 * start-up notice ("✓ Running next.config.mjs took 26ms") is not counted.
 */
export function strayLogLines(log: string): string[] {
  return readFileSync(log, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "" && !/^[✓▲] /.test(line))
    .filter((line) => {
      try {
        JSON.parse(line);
        return false;
      } catch {
        return true;
      }
    });
}
