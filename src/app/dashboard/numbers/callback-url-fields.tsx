import { TextField } from "@/components/ui/field";
import type { FieldBinding } from "@/shared/form-field";
import type { CallbackUrlPolicyOptions } from "@/shared/url-policy";

type UrlField = "onCallStartUrl" | "onCallEndUrl" | "onErrorUrl";

export function urlHint(policy: CallbackUrlPolicyOptions, what: string): string {
  return policy.allowPrivate ? `An http or https URL. ${what}` : `A public HTTPS URL. ${what}`;
}

const EXAMPLES: Record<UrlField, string> = {
  onCallStartUrl: "https://example.com/calls/start",
  onCallEndUrl: "https://example.com/calls/end",
  onErrorUrl: "https://example.com/calls/error",
};

/**
 * A number's three callback URLs, as every form that sets them shows them
 * (adding a number, editing one, registering Twilio numbers): `field` binds
 * each (shared/form-field.ts), `hints` says what each receives on that form.
 */
export function CallbackUrlFields({
  field,
  policy,
  hints,
  examples = false,
}: {
  field: (name: UrlField) => FieldBinding;
  policy: CallbackUrlPolicyOptions;
  hints: Record<UrlField, string>;
  /** Example URLs as placeholders, on a form that starts empty. */
  examples?: boolean;
}) {
  const common = { type: "url", autoComplete: "off", spellCheck: false } as const;
  return (
    <>
      <TextField
        label="Call start URL"
        {...common}
        hint={urlHint(policy, hints.onCallStartUrl)}
        placeholder={examples ? EXAMPLES.onCallStartUrl : undefined}
        {...field("onCallStartUrl")}
      />
      <TextField
        label="Call end URL"
        {...common}
        hint={urlHint(policy, hints.onCallEndUrl)}
        placeholder={examples ? EXAMPLES.onCallEndUrl : undefined}
        {...field("onCallEndUrl")}
      />
      <TextField
        label="Error URL (optional)"
        {...common}
        hint={urlHint(policy, hints.onErrorUrl)}
        placeholder={examples ? EXAMPLES.onErrorUrl : undefined}
        {...field("onErrorUrl")}
      />
    </>
  );
}
