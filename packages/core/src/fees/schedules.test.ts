import { describe, expect, it } from "vitest";
import { FinraTafSchedule, HkChargeSchedule, SecFeeSchedule, inForce, statutorySchedules } from "./schedules";

const entry = (effective_from: string | null, rate: string) => ({ effective_from, rate });

describe("inForce", () => {
  const schedule = [entry(null, "a"), entry("2024-05-22", "b"), entry("2025-05-14", "c")];

  it.each([
    { date: "2020-01-01", rate: "a" },
    { date: "2024-05-21", rate: "a" },
    { date: "2024-05-22", rate: "b" },
    { date: "2025-05-13", rate: "b" },
    { date: "2025-05-14", rate: "c" },
    { date: "2030-12-31", rate: "c" },
  ])("picks rate $rate on $date", ({ date, rate }) => {
    expect(inForce(schedule, date).rate).toBe(rate);
  });

  it("uses the first entry for a date before every dated entry", () => {
    expect(inForce([entry("2024-01-01", "first"), entry("2026-01-01", "second")], "2023-06-30").rate).toBe("first");
  });
});

describe("statutorySchedules", () => {
  it("passes the same validation a broker's own schedules must pass", () => {
    const { us, hk } = statutorySchedules();

    expect(SecFeeSchedule.parse(us.sec_fee)).toEqual(us.sec_fee);
    expect(FinraTafSchedule.parse(us.finra_taf)).toEqual(us.finra_taf);
    for (const schedule of Object.values(hk)) expect(HkChargeSchedule.parse(schedule)).toEqual(schedule);
  });

  it("returns a fresh copy each time so callers cannot alter the published rates", () => {
    const first = statutorySchedules();
    first.us.sec_fee[0].rate = "1";

    expect(statutorySchedules().us.sec_fee[0].rate).toBe("0.000008");
  });
});
