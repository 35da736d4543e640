/**
 * Form errors in the dashboard, one way: issues of a client-side `safeParse`
 * with the API's own schema, or the `details` of the API's VALIDATION_FAILED,
 * become one sentence per field ("Phone number must be …").
 */
export type FieldErrors<F extends string> = Partial<Record<F, string>>;
type Pair = { path: string; message: string };

// The schemas' messages are predicates ("must use https"): the field's name makes them a sentence.
export function fieldSentence(name: string, message: string): string {
  return /^[a-z]/.test(message) ? `${name} ${message}` : message;
}

function collect<F extends string>(names: Record<F, string>, pairs: Pair[]): FieldErrors<F> {
  const errors: FieldErrors<F> = {};
  for (const { path, message } of pairs) {
    if (Object.hasOwn(names, path) && !errors[path as F]) errors[path as F] = fieldSentence(names[path as F], message);
  }
  return errors;
}

/** Issues of a client-side `safeParse` with the API's schema. */
export function errorsFromIssues<F extends string>(
  names: Record<F, string>,
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
): FieldErrors<F> {
  return collect(
    names,
    issues.map((i) => ({ path: String(i.path[0] ?? ""), message: i.message })),
  );
}

/** `details` of the API's VALIDATION_FAILED error. */
export function errorsFromDetails<F extends string>(
  names: Record<F, string>,
  details: Pair[] | undefined,
): FieldErrors<F> {
  return collect(names, details ?? []);
}
