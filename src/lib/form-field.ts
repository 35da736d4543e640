import { get, type FieldValues, type Path, type UseFormReturn } from "react-hook-form";

/**
 * The one way a form field is bound: `const field = fieldBinder(form)`, then
 * `<TextField label="…" {...field("email")} />` gives the input its
 * registration and its error. `subject` leads the error with the field's name
 * ("Email must be…") where the message alone would not say which field.
 */
// biome-ignore lint/suspicious/noExplicitAny: any context and any parsed output; only the field values matter here
export function fieldBinder<T extends FieldValues>(form: UseFormReturn<T, any, any>) {
  return (name: Path<T>, opts: { subject?: string } = {}) => {
    const message = (get(form.formState.errors, name) as { message?: string } | undefined)?.message;
    return { ...form.register(name), error: message && opts.subject ? `${opts.subject} ${message}` : message };
  };
}

export type FieldBinding = ReturnType<ReturnType<typeof fieldBinder<FieldValues>>>;
