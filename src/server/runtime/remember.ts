/**
 * The one home of process-wide singletons (Documenso's `remember()`).
 *
 * The rule: the custom server (`dist/server.mjs`) and Next.js's route bundles
 * are separate module graphs in one process, so a module-level `let` exists
 * once per graph. Anything that must exist once per process (the validated
 * env, the logger, database pools, the job queue, rate-limit buckets) is
 * created through `remember(name, create)`, which keeps it on globalThis
 * under `Symbol.for("routekit.<name>")`, the one key namespace; no other file
 * touches globalThis. Something stateless whose errors callers check with
 * `instanceof` (an SDK client) must stay with its own graph's classes: it uses
 * `rememberPerGraph`, so the choice is visible at the call site.
 */

const PREFIX = "routekit.";
type Store = Record<symbol, unknown>;

function keyOf(name: string): symbol {
  return Symbol.for(PREFIX + name);
}

/** The process's one `name`, created by `create` on first use. */
export function remember<T>(name: string, create: () => T): T {
  const g = globalThis as unknown as Store;
  const key = keyOf(name);
  if (!(key in g)) g[key] = create();
  return g[key] as T;
}

/** The process's `name` if something created it; never creates. */
export function peek<T>(name: string): T | undefined {
  return (globalThis as unknown as Store)[keyOf(name)] as T | undefined;
}

/** Sets `name` for the whole process (boot's resolved values: the env, the database URL). */
export function rememberValue<T>(name: string, value: T): T {
  (globalThis as unknown as Store)[keyOf(name)] = value;
  return value;
}

/** Removes `name` and hands it back, so a stop or disconnect can close it and a later use creates a fresh one. */
export function forget<T>(name: string): T | undefined {
  const g = globalThis as unknown as Store;
  const key = keyOf(name);
  const value = g[key] as T | undefined;
  delete g[key];
  return value;
}

const perGraph = new Map<string, unknown>();

/** One `name` per module graph: for stateless clients whose error classes must be this graph's. */
export function rememberPerGraph<T>(name: string, create: () => T): T {
  if (!perGraph.has(name)) perGraph.set(name, create());
  return perGraph.get(name) as T;
}
