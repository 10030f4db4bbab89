import { describe, expect, it } from "vitest";
import { dailyReturns, performance } from "./metrics";
import type { EngineView } from "./engine";

const view = (over: Partial<EngineView>): EngineView => ({
  initial_equity: 100,
  equity: 121,
  unrealized_pnl: 0,
  cash: { USD: "121" },
  positions: [],
  stats: { closed_trades: 4, wins: 3, losses: 1, gross_profit: "30", gross_loss: "9", fees: "1.234", realized: "21", orders: 9, denied: 1 },
  peak: 121,
  max_drawdown: 0.05,
  max_drawdown_days: 2,
  current_drawdown: 0,
  daily_pnl: 0,
  day_start_equity: 121,
  equity_days: [110, 99, 121],
  days_in_market: 2,
  daily_trades: 0,
  state: null,
  halt: null,
  pending_orders: [],
  ...over,
});

describe("performance metrics", () => {
  it("derives returns, ratios and trade figures by the documented formulas", () => {
    const m = performance(view({}), 252);
    const r = [110 / 100 - 1, 99 / 110 - 1, 121 / 99 - 1];
    const mean = r.reduce((a, b) => a + b) / 3;
    const sd = Math.sqrt(r.reduce((a, x) => a + (x - mean) ** 2, 0) / 2);
    expect(dailyReturns(100, [110, 99, 121])).toEqual(r);
    expect(m.total_return).toBe(0.21);
    expect(m.annualized_return).toBe(Math.round(((121 / 100) ** (252 / 3) - 1) * 1e6) / 1e6);
    expect(m.sharpe_ratio).toBeCloseTo((mean / sd) * Math.sqrt(252), 5);
    expect(m.sortino_ratio).toBeCloseTo((mean / Math.sqrt(0.01 / 3)) * Math.sqrt(252), 5);
    expect(m).toMatchObject({
      win_rate: 0.75,
      profit_factor: 3.333333,
      average_win: "10.00",
      average_loss: "9.00",
      exposure: 0.666667,
      fees_paid: "1.23",
      total_pnl: "21.00",
      trading_days: 3,
    });
  });

  it("leaves undefined figures null instead of inventing them", () => {
    const m = performance(
      view({
        equity_days: [],
        stats: { closed_trades: 0, wins: 0, losses: 0, gross_profit: "0", gross_loss: "0", fees: "0", realized: "0", orders: 0, denied: 0 },
      }),
      252,
    );
    expect(m).toMatchObject({ annualized_return: null, sharpe_ratio: null, sortino_ratio: null, win_rate: null, profit_factor: null, exposure: null });
  });
});
