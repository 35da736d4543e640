export type NumberField = "phoneNumber" | "onCallStartUrl" | "onCallEndUrl" | "onErrorUrl";

/** The labels of the number forms, which also start their error sentences. */
export const NUMBER_FIELD_NAMES: Record<NumberField, string> = {
  phoneNumber: "Phone number",
  onCallStartUrl: "Call start URL",
  onCallEndUrl: "Call end URL",
  onErrorUrl: "Error URL",
};
