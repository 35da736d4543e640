/**
 * How /docs configures Scalar (options of @scalar/api-reference 1.72): nothing
 * leaves this origin, none of Scalar's hosted-service controls, and schema
 * fields in the order the API declares them, which is their reading order.
 */
export const SCALAR_CONFIGURATION = {
  // Fonts from the system, not fonts.scalar.com; no usage reports to Scalar.
  withDefaultFonts: false,
  telemetry: false,
  // "Ask AI", "Generate MCP" and the developer tools' "Deploy" are Scalar's hosted services.
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: "never",
  orderSchemaPropertiesBy: "preserve",
  orderRequiredPropertiesFirst: false,
  documentDownloadType: "json",
} as const;
