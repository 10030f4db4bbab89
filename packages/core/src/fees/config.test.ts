import { describe, expect, it } from "vitest";
import { ValidationError } from "../errors";
import { FeeConfig } from "./config";
import { Fees } from "./index";

const issuesOf = (attempt: () => unknown) => {
  try {
    attempt();
  } catch (error) {
    if (error instanceof ValidationError) return error.issues;
    throw error;
  }
  throw new Error("expected a ValidationError");
};

describe("Fees.defaults", () => {
  it("gives LongPort HK HK$0 commission and a HK$15 platform fee per order", () => {
    expect(Fees.defaults("longport").hk_fees).toMatchObject({
      commission_rate: "0",
      commission_min_per_order: "0",
      platform_fee_per_order: "15",
    });
  });

  it("gives Futu HK 0.03% commission with a HK$3 minimum", () => {
    expect(Fees.defaults("futu").hk_fees).toMatchObject({ commission_rate: "0.0003", commission_min_per_order: "3" });
  });

  it.each(["paper", "simulated", "longbridge"])("prices a %s broker like LongPort", (brokerType) => {
    expect(Fees.defaults(brokerType)).toEqual(Fees.defaults("longport"));
  });

  it("answers in the FeeConfig output shape with the statutory schedules filled in", () => {
    const config = Fees.defaults("futu");

    expect(FeeConfig.parse(config)).toEqual(config);
    expect(config.us_fees.sec_fee_schedule).toEqual(Fees.statutorySchedules().us.sec_fee);
  });
});

describe("Fees.overrides", () => {
  it("keeps changed values as canonical decimal strings and drops values equal to the defaults", () => {
    const stored = Fees.overrides("longport", {
      us_fees: { commission_per_share: 0.0035, commission_min_per_order: "0.99", platform_fee_max_rate: null },
      hk_fees: { platform_fee_per_order: "15.00", commission_rate: "0.000300" },
    });

    expect(stored).toEqual({
      us_fees: { commission_per_share: "0.0035", platform_fee_max_rate: null },
      hk_fees: { commission_rate: "0.0003" },
    });
  });

  it("stores nothing when an answered configuration is sent back unchanged", () => {
    expect(Fees.overrides("futu", Fees.resolve("futu"))).toEqual({});
  });

  it("rejects a negative rate, an unknown field and an out-of-order schedule, locating each", () => {
    const issues = issuesOf(() =>
      Fees.overrides("longport", {
        us_fees: {
          commission_per_share: -1,
          sec_fee_schedule: [
            { effective_from: "2025-01-01", rate: 0 },
            { effective_from: "2024-01-01", rate: 0.00001 },
          ],
        },
        hk_fees: { stamp_duty: 0.001 },
      }),
    );

    expect(issues.map((issue) => issue.loc)).toEqual(
      expect.arrayContaining([
        ["body", "us_fees", "commission_per_share"],
        ["body", "us_fees", "sec_fee_schedule", 1, "effective_from"],
        ["body", "hk_fees"],
      ]),
    );
  });

  it("rejects a schedule entry other than the first without a start date", () => {
    const issues = issuesOf(() =>
      Fees.overrides("longport", {
        hk_fees: {
          sfc_levy_schedule: [
            { effective_from: null, rate: 0.000027 },
            { effective_from: null, rate: 0.00003 },
          ],
        },
      }),
    );

    expect(issues).toEqual([expect.objectContaining({ loc: ["body", "hk_fees", "sfc_levy_schedule", 1, "effective_from"] })]);
  });

  it("fills an HK schedule entry's optional parts with no fixed amount and no minimum or maximum", () => {
    const stored = Fees.overrides("longport", { hk_fees: { stamp_duty_schedule: [{ effective_from: null, rate: "0.0005" }] } });

    expect(stored.hk_fees?.stamp_duty_schedule).toEqual([{ effective_from: null, rate: "0.0005", per_trade: "0", minimum: null, maximum: null }]);
  });
});

describe("Fees.resolve", () => {
  it("lays stored overrides over the broker type's defaults", () => {
    const config = Fees.resolve("futu", { hk_fees: { platform_fee_per_order: "30" } });

    expect(config.hk_fees).toEqual({ ...Fees.defaults("futu").hk_fees, platform_fee_per_order: "30" });
    expect(config.us_fees).toEqual(Fees.defaults("futu").us_fees);
  });

  it("gives the defaults when nothing is stored", () => {
    expect(Fees.resolve("longport")).toEqual(Fees.defaults("longport"));
  });
});
