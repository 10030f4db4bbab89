import { describe, expect, it } from "vitest";
import type { DomainError } from "../errors";
import { Dec } from "../money/decimal";
import { closeSleeve, freeCash, freeShares, holdChanged, newAccount, openSleeve } from "./account-rules";
import type { PaperAccount, PaperOrder } from "./types";

const NOW = Date.UTC(2024, 2, 15, 14);

/** An account of 50,000 USD holding 300 F.US, 20 of them promised to a working sell, and 1,000 USD held by a working buy. */
function account(): PaperAccount {
  const { account } = newAccount("u1", { USD: "50000" }, NOW);
  account.cash.USD.frozen = "1000.00";
  account.positions["F.US"] = { symbol: "F.US", symbol_name: "Ford", market: "US", currency: "USD", quantity: "300", frozen: "20", cost_amount: "3600.00" };
  return account;
}

const order = (sleeve: string, frozen_cash: string, frozen_quantity: string) =>
  ({ sleeve, currency: "USD", symbol: "F.US", frozen_cash, frozen_quantity }) as PaperOrder;

describe("a paper account's money rules", () => {
  it("frees cash and shares less what working orders and sleeves hold, and a sleeve only its own", () => {
    const a = account();
    expect(freeCash(a, "USD").toFixed()).toBe("49000");
    expect(openSleeve(a, "s1", { USD: new Dec(20000) }, { "F.US": new Dec(100) }, NOW, [])).toBe(true);
    expect(freeCash(a, "USD").toFixed()).toBe("29000");
    expect(freeShares(a, "F.US").toFixed()).toBe("180");
    // The sleeve's own working buy holds 2,000 of its cash (and of the account's frozen cash); a sell 40 of its shares.
    a.cash.USD.frozen = "3000.00";
    a.positions["F.US"]!.frozen = "60";
    holdChanged(a, order("s1", "0", "0"), new Dec(2000), new Dec(40));
    expect(freeCash(a, "USD", "s1").toFixed()).toBe("18000");
    expect(freeShares(a, "F.US", "s1").toFixed()).toBe("60");
    // The rest of the account sees the same free figures as before.
    expect(freeCash(a, "USD").toFixed()).toBe("29000");
    expect(freeShares(a, "F.US").toFixed()).toBe("180");
  });

  it("refuses a sleeve the free cash or shares cannot fund, naming what is free, and keeps a sleeve already there", () => {
    const a = account();
    const refusal = (() => {
      try {
        openSleeve(a, "s1", { USD: new Dec(49000.01) }, {}, NOW, []);
      } catch (error) {
        return error as DomainError;
      }
    })();
    expect(refusal).toMatchObject({ status: 409, code: "INSUFFICIENT_FREE_CASH", extra: { currency: "USD", required: "49000.01", free_cash: "49000.00" } });
    expect(() => openSleeve(a, "s1", {}, { "F.US": new Dec(281) }, NOW, [])).toThrow(/280 free/);
    expect(openSleeve(a, "s1", { USD: new Dec(100) }, {}, NOW, [])).toBe(true);
    expect(openSleeve(a, "s1", { USD: new Dec(200) }, {}, NOW, [])).toBe(false);
    expect(a.sleeves!.s1!.cash.USD).toBe("100.00");
  });

  it("holds a restarted session's working orders in its new sleeve, and dissolving the sleeve frees its cash and leaves its shares", () => {
    const a = account();
    openSleeve(a, "s1", { USD: new Dec(5000) }, { "F.US": new Dec(50) }, NOW, [order("s1", "1000.00", "0"), order("other", "7", "0")]);
    expect(a.sleeves!.s1!.held).toEqual({ USD: "1000.00" });
    expect(freeCash(a, "USD", "s1").toFixed()).toBe("4000");
    expect(closeSleeve(a, "s1")?.cash.USD).toBe("5000.00");
    expect(freeCash(a, "USD").toFixed()).toBe("49000");
    expect(a.positions["F.US"]!.quantity).toBe("300");
    expect(closeSleeve(a, "s1")).toBeUndefined();
  });
});
