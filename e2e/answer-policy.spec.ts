import { expect, test } from "@playwright/test";
import { createAccount, signedIn } from "../tests/support/accounts";
import { screenshots, uniqueNumber } from "../tests/support/helpers";

// The number form's answer policy (docs/decisions.md §12): timeout, fallback and last resort, the
// server's save-time check of a bad fallback, and "Test the fallback" showing the caller's TwiML.
const BASE = process.env.E2E_BASE_URL!;
test.use({ baseURL: BASE });

test("set a fallback and a last resort on a number, see a bad one refused, and preview what callers get", async ({
  page,
}) => {
  await test.step("a paid account (made over the API) adds a number", async () => {
    await signedIn(page, await createAccount("fallback", { paid: true }));
    await page.goto("/dashboard");
    await expect(page.getByTestId("overview-status")).toHaveText("Active");
    await page.goto("/dashboard/numbers");
    // Typed as people write it; saved in E.164.
    const number = uniqueNumber();
    const formatted = `(${number.slice(2, 5)}) ${number.slice(5, 8)}-${number.slice(8)}`;
    await page.getByLabel("Phone number").fill(formatted);
    await page.getByLabel("Call start URL").fill("https://api.example.com/start");
    await page.getByLabel("Call end URL").fill("https://api.example.com/end");
    await page.getByRole("button", { name: "Add number" }).click();
    await expect(page.getByTestId("number-row")).toHaveCount(1);
    await expect(page.getByTestId("number-row")).toContainText(number);
    await expect(page.getByTestId("number-fallback")).toHaveText("The built-in apology.");
  });

  const row = page.getByTestId("number-row");
  await test.step("a fallback action the server cannot build is refused on save", async () => {
    await row.getByRole("button", { name: "Edit" }).click();
    const form = page.getByTestId("number-edit-form");
    await form.getByLabel("Answer timeout (ms, optional)").fill("500");
    await form.getByRole("button", { name: "Save changes" }).click();
    await expect(
      form.getByText("Answer timeout must be a whole number of milliseconds from 1000 to 10000"),
    ).toBeVisible();
    await form.getByLabel("Answer timeout (ms, optional)").fill("2500");
    await form.getByLabel("Fallback", { exact: true }).selectOption("actions");
    await form.getByLabel("Fallback actions").fill('[{"dial": "call me maybe"}]');
    await form.getByRole("button", { name: "Save changes" }).click();
    // The server's verdict, under the field it is about.
    await expect(form.getByText(/^Fallback actions actions\[0\]\.dial must be an E\.164 number/)).toBeVisible();
  });

  await test.step("good fallback actions and a last resort are saved", async () => {
    const form = page.getByTestId("number-edit-form");
    await form.getByLabel("Fallback actions").fill('[{"say": "Please hold"}, {"dial": "+14155550199"}]');
    await form.getByLabel("Last resort actions (optional)").fill('[{"say": "Sorry"}, {"hangup": true}]');
    await form.getByRole("button", { name: "Save changes" }).click();
    await expect(page.getByTestId("number-edit-form")).toHaveCount(0);
    await expect(page.getByTestId("number-fallback")).toHaveText(
      "Fallback after 2500 ms answers with your actions; then your last resort.",
    );
  });

  await test.step("Test the fallback shows the TwiML a caller would get", async () => {
    await row.getByRole("button", { name: "Test the fallback" }).click();
    const preview = page.getByTestId("fallback-preview");
    const step = preview.getByTestId("fallback-step");
    await expect(step).toHaveCount(1);
    await expect(step).toHaveAttribute("data-taken-over-by", "fallback-actions");
    await expect(step.locator("pre")).toHaveText(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Say>Please hold</Say><Dial>+14155550199</Dial></Response>',
    );
    await screenshots(page, "numbers-fallback-preview");
  });

  await test.step("a fallback URL: the preview says it is asked first, then the last resort", async () => {
    await page.getByTestId("fallback-preview").getByRole("button", { name: "Close" }).click();
    await row.getByRole("button", { name: "Edit" }).click();
    const form = page.getByTestId("number-edit-form");
    await expect(form.getByLabel("Fallback actions")).toHaveValue(/Please hold/);
    await form.getByLabel("Fallback", { exact: true }).selectOption("url");
    await form.getByLabel("Fallback URL").fill("https://backup.example.com/start");
    await form.getByRole("button", { name: "Save changes" }).click();
    await expect(page.getByTestId("number-edit-form")).toHaveCount(0);
    await row.getByRole("button", { name: "Test the fallback" }).click();
    const steps = page.getByTestId("fallback-preview").getByTestId("fallback-step");
    await expect(steps).toHaveCount(2);
    await expect(steps.nth(0)).toContainText("https://backup.example.com/start");
    await expect(steps.nth(1)).toHaveAttribute("data-taken-over-by", "last-resort");
    await expect(steps.nth(1).locator("pre")).toContainText("<Say>Sorry</Say><Hangup/>");
  });
});
