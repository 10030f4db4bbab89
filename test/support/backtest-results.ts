import { expect } from "vitest";
import type { TestApi } from "./harness";

const withoutOrderId = ({ order_id: _order, ...fill }: { order_id: string }) => fill;

/**
 * Asserts two backtests gave the same run: the same fills (order ids aside: they name their own
 * run), metrics, final values and bars processed; at least one fill, so the comparison says something.
 */
export async function expectSameResults(api: TestApi, token: string, [first, second]: [string, string]): Promise<void> {
  const [a, b] = await Promise.all([first, second].map((id) => api.json("GET", `/api/v1/backtest/${id}/result`, 200, { token })));
  expect(a.fills.length).toBeGreaterThan(0);
  expect(a.fills.map(withoutOrderId)).toEqual(b.fills.map(withoutOrderId));
  expect(a.performance_metrics).toEqual(b.performance_metrics);
  expect(a.final_value_by_currency).toEqual(b.final_value_by_currency);
  expect(a.bars_processed).toBe(b.bars_processed);
}
