/** Writes docs/call-outcomes.md from src/shared/call-outcomes.ts (tests/unit/call-outcomes.test.ts checks they agree). */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { callOutcomesMarkdown } from "../../src/shared/call-outcomes";

const file = path.resolve(import.meta.dirname, "../../docs/call-outcomes.md");
writeFileSync(file, callOutcomesMarkdown());
console.log(`wrote ${path.relative(process.cwd(), file)}`);
