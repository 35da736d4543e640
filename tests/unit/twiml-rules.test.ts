import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { deriveTwimlRules, renderRules, RULES_PATH } from "../../scripts/twiml-rules";

describe("the TwiML rules table", () => {
  it("is what the installed Twilio SDK yields (regenerate with npx tsx scripts/twiml-rules.ts)", () => {
    expect(readFileSync(RULES_PATH, "utf8")).toBe(renderRules(deriveTwimlRules()));
  });

  it("holds the rules behind issue #22's four refused documents", () => {
    const rules = deriveTwimlRules();
    const response = rules.elements[rules.root]!;
    expect(response.children.Say).toBe("Say");
    expect(response.children.say).toBeUndefined();
    expect(Object.keys(rules.elements.Gather!.children).sort()).toEqual(["Pause", "Play", "Say"]);
    expect(rules.elements.Say!.attributes.loop).toEqual({ type: "integer" });
    expect(rules.elements.Gather!.attributes.input).toEqual({ type: "enum", enum: "GatherInput", list: true });
  });
});
