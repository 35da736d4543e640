import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { call, newAccount, newActiveAccount, numberBody, randomUsNumber, sql, suspend, seed } from "../support/api";

describe("POST /api/phone-numbers", () => {
  describe("happy", () => {
    it("registers a number with the full shape; onErrorUrl null when not supplied", async () => {
      const acct = await newActiveAccount();
      const body = numberBody();
      const res = await acct.as("POST", "/api/phone-numbers", { body });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        phoneNumber: {
          id: expect.any(String),
          phoneNumber: body.phoneNumber,
          onCallStartUrl: body.onCallStartUrl,
          onCallEndUrl: body.onCallEndUrl,
          onErrorUrl: null,
          // No answer policy given: the defaults (docs/decisions.md §12).
          answerTimeoutMs: null,
          fallback: null,
          lastResort: null,
          isActive: true,
          // No Twilio connection: first-come, unproven, and left to the customer to point at us.
          verified: false,
          twilioConfigured: false,
          // docs/decisions.md §17: no daily cap unless one is given; a new number has no minutes today.
          dailyMinuteCap: null,
          // docs/decisions.md §19: events go to the URLs unless asked otherwise.
          listen: false,
          shadow: null,
          minutesToday: 0,
          createdAt: expect.any(String),
        },
      });
      expect((await acct.as("GET", "/api/account")).body.account._count.phoneNumbers).toBe(1);
    });

    it("keeps onErrorUrl when supplied", async () => {
      const acct = await newActiveAccount();
      const res = await acct.as("POST", "/api/phone-numbers", {
        body: numberBody({ onErrorUrl: "https://api.example.com/calls/error" }),
      });
      expect(res.body.phoneNumber.onErrorUrl).toBe("https://api.example.com/calls/error");
    });
  });

  describe("error", () => {
    it("400 for numbers that are not US E.164", async () => {
      const acct = await newActiveAccount();
      for (const phoneNumber of [
        "4155550123",
        "+44 20 7946 0958",
        "+14155550123x",
        "+11555550123",
        "+14151550123",
        "+1415555012",
        "",
        14155550123,
      ]) {
        const res = await acct.as("POST", "/api/phone-numbers", { body: numberBody({ phoneNumber }) });
        expect(res.status, String(phoneNumber)).toBe(400);
        expect(res.body.error.details[0].path).toBe("phoneNumber");
      }
    });

    it("400 naming the field for a callback URL that is not public HTTPS", async () => {
      const acct = await newActiveAccount();
      const cases: [string, string][] = [
        ["onCallStartUrl", "http://api.example.com/start"],
        ["onCallEndUrl", "https://127.0.0.1/end"],
        ["onErrorUrl", "https://2130706433/"],
        ["onCallStartUrl", "https://[::ffff:127.0.0.1]/"],
        ["onCallEndUrl", "https://169.254.169.254/latest/meta-data"],
        ["onErrorUrl", "https://metadata.google.internal/"],
        ["onCallStartUrl", "https://user:pw@api.example.com/"],
        ["onCallStartUrl", "https://localhost./x"],
        ["onCallEndUrl", "https://10.0.0.8/"],
        ["onCallEndUrl", `https://example.com/${"a".repeat(2048)}`],
      ];
      for (const [field, url] of cases) {
        const res = await acct.as("POST", "/api/phone-numbers", { body: numberBody({ [field]: url }) });
        expect(res.status, url).toBe(400);
        expect(res.body.error.code).toBe("VALIDATION_FAILED");
        expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(field);
      }
      expect((await acct.as("GET", "/api/phone-numbers")).body.phoneNumbers).toHaveLength(0);
    });

    it("400 for missing fields", async () => {
      const acct = await newActiveAccount();
      const res = await acct.as("POST", "/api/phone-numbers", { body: {} });
      expect(res.status).toBe(400);
      expect(res.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual([
        "onCallEndUrl",
        "onCallStartUrl",
        "phoneNumber",
      ]);
    });

    it("402 for an account that has not paid; 403 for a suspended one", async () => {
      const inactive = await newAccount();
      const r402 = await inactive.as("POST", "/api/phone-numbers", { body: numberBody() });
      expect(r402.status).toBe(402);
      expect(r402.body.error.code).toBe("PAYMENT_REQUIRED");
      const suspended = await newActiveAccount();
      await suspend(suspended);
      const r403 = await suspended.as("POST", "/api/phone-numbers", { body: numberBody() });
      expect(r403.status).toBe(403);
      expect(r403.body.error.code).toBe("ACCOUNT_SUSPENDED");
    });

    it("409 NUMBER_TAKEN for a number held by this or another account", async () => {
      const a = await newActiveAccount();
      const b = await newActiveAccount();
      const body = numberBody();
      expect((await a.as("POST", "/api/phone-numbers", { body })).status).toBe(201);
      const again = await a.as("POST", "/api/phone-numbers", { body });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe("NUMBER_TAKEN");
      expect((await b.as("POST", "/api/phone-numbers", { body })).status).toBe(409);
    });

    it("exactly one 201 when two accounts register one number at once", async () => {
      const accounts = await Promise.all([newActiveAccount(), newActiveAccount(), newActiveAccount()]);
      const phoneNumber = randomUsNumber();
      const results = await Promise.all(
        accounts.map((a) => a.as("POST", "/api/phone-numbers", { body: numberBody({ phoneNumber }) })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    });
  });

  describe("security", () => {
    it("401 without a key", async () => {
      expect((await call("POST", "/api/phone-numbers", { body: numberBody() })).status).toBe(401);
    });
  });
});

describe("GET /api/phone-numbers", () => {
  describe("happy", () => {
    it("the account's numbers, oldest first, full shape", async () => {
      const acct = await newActiveAccount();
      const first = await acct.as("POST", "/api/phone-numbers", { body: numberBody() });
      const second = await acct.as("POST", "/api/phone-numbers", {
        body: numberBody({ onErrorUrl: "https://e.example.com/" }),
      });
      const res = await acct.as("GET", "/api/phone-numbers");
      expect(res.status).toBe(200);
      expect(res.body.phoneNumbers).toEqual([first.body.phoneNumber, second.body.phoneNumber]);
    });

    it("an INACTIVE or SUSPENDED account can still read", async () => {
      const inactive = await newAccount();
      expect((await inactive.as("GET", "/api/phone-numbers")).body).toEqual({ phoneNumbers: [] });
      const suspended = await newActiveAccount();
      const n = await suspended.as("POST", "/api/phone-numbers", { body: numberBody() });
      await suspend(suspended);
      expect((await suspended.as("GET", "/api/phone-numbers")).body.phoneNumbers).toHaveLength(1);
      expect((await suspended.as("GET", `/api/phone-numbers/${n.body.phoneNumber.id}`)).status).toBe(200);
    });
  });

  describe("security", () => {
    it("account B never sees account A's numbers", async () => {
      const a = await newActiveAccount();
      const b = await newActiveAccount();
      const n = await a.as("POST", "/api/phone-numbers", { body: numberBody() });
      const list = await b.as("GET", "/api/phone-numbers");
      expect(list.body.phoneNumbers).toEqual([]);
      const one = await b.as("GET", `/api/phone-numbers/${n.body.phoneNumber.id}`);
      expect(one.status).toBe(403);
      expect(one.body.error.code).toBe("NUMBER_NOT_OWNED");
      expect(one.text).not.toContain(n.body.phoneNumber.phoneNumber);
    });
  });
});

describe("PATCH /api/phone-numbers/:id", () => {
  describe("happy", () => {
    it("changes only the fields given; onErrorUrl null clears it", async () => {
      const acct = await newActiveAccount();
      const created = (
        await acct.as("POST", "/api/phone-numbers", { body: numberBody({ onErrorUrl: "https://api.example.com/err" }) })
      ).body.phoneNumber;
      const res = await acct.as("PATCH", `/api/phone-numbers/${created.id}`, {
        body: { onCallStartUrl: "https://new.example.com/start" },
      });
      expect(res.status).toBe(200);
      expect(res.body.phoneNumber).toEqual({ ...created, onCallStartUrl: "https://new.example.com/start" });
      const cleared = await acct.as("PATCH", `/api/phone-numbers/${created.id}`, { body: { onErrorUrl: null } });
      expect(cleared.body.phoneNumber).toEqual({
        ...created,
        onCallStartUrl: "https://new.example.com/start",
        onErrorUrl: null,
      });
      const noop = await acct.as("PATCH", `/api/phone-numbers/${created.id}`, { body: {} });
      expect(noop.body.phoneNumber).toEqual(cleared.body.phoneNumber);
    });

    it("listen: set on create, turned off and on by PATCH, omitted unchanged; not a boolean is 400 (decisions §19)", async () => {
      const acct = await newActiveAccount();
      const created = (await acct.as("POST", "/api/phone-numbers", { body: numberBody({ listen: true }) })).body
        .phoneNumber;
      expect(created.listen).toBe(true);
      const off = await acct.as("PATCH", `/api/phone-numbers/${created.id}`, { body: { listen: false } });
      expect(off.body.phoneNumber).toEqual({ ...created, listen: false });
      const kept = await acct.as("PATCH", `/api/phone-numbers/${created.id}`, { body: { onErrorUrl: null } });
      expect(kept.body.phoneNumber.listen).toBe(false);
      const bad = await acct.as("PATCH", `/api/phone-numbers/${created.id}`, { body: { listen: "yes" } });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details[0].path).toBe("listen");
      expect((await acct.as("GET", `/api/phone-numbers/${created.id}`)).body.phoneNumber.listen).toBe(false);
    });
  });

  describe("error", () => {
    it("400 for a bad URL, and nothing changes", async () => {
      const acct = await newActiveAccount();
      const created = (await acct.as("POST", "/api/phone-numbers", { body: numberBody() })).body.phoneNumber;
      const res = await acct.as("PATCH", `/api/phone-numbers/${created.id}`, {
        body: { onCallStartUrl: "https://ok.example.com/", onCallEndUrl: "https://192.168.1.1/" },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.details[0].path).toBe("onCallEndUrl");
      expect((await acct.as("GET", `/api/phone-numbers/${created.id}`)).body.phoneNumber).toEqual(created);
    });

    it("404 for an unknown id; 403 for a suspended account", async () => {
      const acct = await newActiveAccount();
      expect((await acct.as("PATCH", "/api/phone-numbers/nope", { body: { onErrorUrl: null } })).status).toBe(404);
      const created = (await acct.as("POST", "/api/phone-numbers", { body: numberBody() })).body.phoneNumber;
      await suspend(acct);
      const res = await acct.as("PATCH", `/api/phone-numbers/${created.id}`, { body: { onErrorUrl: null } });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("ACCOUNT_SUSPENDED");
    });
  });

  describe("security", () => {
    it("403 NUMBER_NOT_OWNED for another account's number, which stays unchanged", async () => {
      const a = await newActiveAccount();
      const b = await newActiveAccount();
      const created = (await a.as("POST", "/api/phone-numbers", { body: numberBody() })).body.phoneNumber;
      const res = await b.as("PATCH", `/api/phone-numbers/${created.id}`, {
        body: { onCallStartUrl: "https://attacker.example.com/" },
      });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("NUMBER_NOT_OWNED");
      expect((await a.as("GET", `/api/phone-numbers/${created.id}`)).body.phoneNumber.onCallStartUrl).toBe(
        created.onCallStartUrl,
      );
    });
  });
});

describe("DELETE /api/phone-numbers/:id", () => {
  describe("happy", () => {
    it("releases the number for anyone to register again", async () => {
      const a = await newActiveAccount();
      const b = await newActiveAccount();
      const created = (await a.as("POST", "/api/phone-numbers", { body: numberBody() })).body.phoneNumber;
      const res = await a.as("DELETE", `/api/phone-numbers/${created.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ deleted: true });
      expect((await a.as("GET", "/api/phone-numbers")).body.phoneNumbers).toEqual([]);
      expect((await a.as("GET", "/api/account")).body.account._count.phoneNumbers).toBe(0);
      const taken = await b.as("POST", "/api/phone-numbers", {
        body: numberBody({ phoneNumber: created.phoneNumber }),
      });
      expect(taken.status).toBe(201);
    });

    it("the number's calls stay, with their own copy of the numbers and no number id", async () => {
      const acct = await newActiveAccount();
      const created = (await acct.as("POST", "/api/phone-numbers", { body: numberBody() })).body.phoneNumber;
      const callSid = `CA${randomUUID().replace(/-/g, "")}`;
      await seed().call({ callSid, accountId: acct.id, phoneNumberId: created.id, toNumber: created.phoneNumber });
      expect((await acct.as("DELETE", `/api/phone-numbers/${created.id}`)).status).toBe(200);
      const { rows } = await sql().query(`SELECT "phoneNumberId", "toNumber" FROM "Call" WHERE "callSid" = $1`, [
        callSid,
      ]);
      expect(rows).toEqual([{ phoneNumberId: null, toNumber: created.phoneNumber }]);
    });
  });

  describe("error", () => {
    it("404 for an unknown or already deleted id; 403 when suspended", async () => {
      const acct = await newActiveAccount();
      const created = (await acct.as("POST", "/api/phone-numbers", { body: numberBody() })).body.phoneNumber;
      await acct.as("DELETE", `/api/phone-numbers/${created.id}`);
      expect((await acct.as("DELETE", `/api/phone-numbers/${created.id}`)).status).toBe(404);
      const other = (await acct.as("POST", "/api/phone-numbers", { body: numberBody() })).body.phoneNumber;
      await suspend(acct);
      expect((await acct.as("DELETE", `/api/phone-numbers/${other.id}`)).body.error.code).toBe("ACCOUNT_SUSPENDED");
    });
  });

  describe("security", () => {
    it("another account cannot release my number", async () => {
      const a = await newActiveAccount();
      const b = await newActiveAccount();
      const created = (await a.as("POST", "/api/phone-numbers", { body: numberBody() })).body.phoneNumber;
      const res = await b.as("DELETE", `/api/phone-numbers/${created.id}`);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("NUMBER_NOT_OWNED");
      expect((await a.as("GET", "/api/phone-numbers")).body.phoneNumbers).toHaveLength(1);
    });
  });
});
