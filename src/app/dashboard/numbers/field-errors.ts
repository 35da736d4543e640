export type NumberField = "phoneNumber" | "onCallStartUrl" | "onCallEndUrl" | "onErrorUrl";
export type FieldErrors = Partial<Record<NumberField, string>>;

export const FIELD_NAMES: Record<NumberField, string> = {
  phoneNumber: "Phone number",
  onCallStartUrl: "Call start URL",
  onCallEndUrl: "Call end URL",
  onErrorUrl: "Error URL",
};

function isField(path: string): path is NumberField {
  return Object.hasOwn(FIELD_NAMES, path);
}

// The schemas' messages are predicates ("must use https"): the field's name makes them a sentence.
function sentence(field: NumberField, message: string): string {
  return /^[a-z]/.test(message) ? `${FIELD_NAMES[field]} ${message}` : message;
}

function collect(pairs: { path: string; message: string }[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const { path, message } of pairs) {
    if (isField(path) && !errors[path]) errors[path] = sentence(path, message);
  }
  return errors;
}

/** Issues of a client-side `safeParse` with the API's schema. */
export function errorsFromIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): FieldErrors {
  return collect(issues.map((i) => ({ path: String(i.path[0] ?? ""), message: i.message })));
}

/** `details` of the API's VALIDATION_FAILED error. */
export function errorsFromDetails(details: { path: string; message: string }[] | undefined): FieldErrors {
  return collect(details ?? []);
}

export function hasErrors(errors: FieldErrors): boolean {
  return Object.values(errors).some(Boolean);
}

/** Moves focus to the first field marked invalid once React has rendered the errors. */
export function focusFirstInvalid(form: HTMLFormElement | null) {
  requestAnimationFrame(() => form?.querySelector<HTMLInputElement>('[aria-invalid="true"]')?.focus());
}
