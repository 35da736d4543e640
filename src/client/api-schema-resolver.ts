import { zodResolver } from "@hookform/resolvers/zod";
import type { FieldValues, Resolver } from "react-hook-form";
import type { z } from "zod";
import { fieldSentence } from "@/shared/field-errors";

/**
 * react-hook-form validation with the API's own zod schema, so the browser
 * says what the API would; the schemas' messages are predicates ("must use
 * https"), so each becomes a sentence starting with its field's label.
 */
export function apiSchemaResolver<Values extends FieldValues, Output>(
  schema: z.ZodType<Output, Values>,
  names: Record<string, string>,
): Resolver<Values, unknown, Output> {
  const base = zodResolver(schema as never) as unknown as Resolver<Values, unknown, Output>;
  return async (values, context, options) => {
    const result = await base(values, context, options);
    for (const [name, error] of Object.entries(result.errors)) {
      const e = error as { message?: string } | undefined;
      if (e?.message && names[name]) e.message = fieldSentence(names[name], e.message);
    }
    return result;
  };
}
