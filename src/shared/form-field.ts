import { get, type FieldValues, type Path, type UseFormReturn } from "react-hook-form";

/**
 * The one way a form field is bound: `field("email")` (from useApiForm, or
 * `fieldBinder(form)`) spread on `<TextField label="…" />` gives the input its
 * registration and its error; the resolver already made the error a sentence
 * led by the field's label ("Email must be…").
 */
// biome-ignore lint/suspicious/noExplicitAny: any context and any parsed output; only the field values matter here
export function fieldBinder<T extends FieldValues>(form: UseFormReturn<T, any, any>) {
  return (name: Path<T>) => {
    const message = (get(form.formState.errors, name) as { message?: string } | undefined)?.message;
    return { ...form.register(name), error: message };
  };
}

export type FieldBinding = ReturnType<ReturnType<typeof fieldBinder<FieldValues>>>;
