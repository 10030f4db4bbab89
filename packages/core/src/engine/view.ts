import type { EngineOrder } from "./events";
import type { Money } from "../money/money";
import { equityOf, newStats, ZERO, type EngineCore, type Stats, type ChannelRunState, type Halt } from "./runtime";

/** An open position as the views show it. */
export interface PositionView {
  channel_id: string;
  sleeve: string;
  symbol: string;
  quantity: number;
  cost: string;
  entry_price: number;
  last_price: number;
  market_value: number;
  unrealized_pnl: number;
  currency: string;
  opened_at: number;
}

/** A channel's (or the session's) figures at the engine's current time. */
export interface EngineView {
  initial_equity: number;
  equity: number;
  unrealized_pnl: number;
  cash: Record<string, string>;
  positions: PositionView[];
  stats: {
    closed_trades: number;
    wins: number;
    losses: number;
    gross_profit: string;
    gross_loss: string;
    fees: string;
    realized: string;
    orders: number;
    denied: number;
  };
  peak: number;
  max_drawdown: number;
  max_drawdown_days: number;
  current_drawdown: number;
  daily_pnl: number;
  day_start_equity: number;
  equity_days: number[];
  days_in_market: number;
  daily_trades: number;
  state: ChannelRunState | null;
  halt: Halt;
  pending_orders: EngineOrder[];
}

/** Figures of one channel, or of the whole session when `channelId` is null. */
export function viewOf(e: EngineCore, channelId: string | null): EngineView {
  const list = channelId === null ? e.channels : [e.channel(channelId)];
  const stats = newStats();
  const positions: PositionView[] = [];
  const cash = new Map<string, Money>();
  let initial = 0;
  let equity = 0;
  let unrealized = 0;
  for (const channel of list) {
    initial += channel.initial_equity;
    equity += equityOf(channel);
    for (const [currency, amount] of channel.cash) cash.set(currency, (cash.get(currency) ?? ZERO).plus(amount));
    for (const key of Object.keys(stats) as (keyof Stats)[]) {
      const value = channel.stats[key];
      (stats as unknown as Record<string, unknown>)[key] = typeof value === "number" ? (stats[key] as number) + value : (stats[key] as Money).plus(value);
    }
    for (const sleeve of [...channel.sleeves, channel.manual]) {
      for (const position of sleeve.positions.values()) {
        if (position.quantity === 0) continue;
        const info = e.info(position.symbol);
        const known = info.last;
        const last = Number.isNaN(known) ? position.entry_price : known;
        const value = position.quantity * last;
        const pnl = value - position.cost.toNumber();
        unrealized += pnl * info.fx;
        positions.push({
          channel_id: channel.setup.channel_id,
          sleeve: sleeve.key,
          symbol: position.symbol,
          quantity: position.quantity,
          cost: position.cost.toString(),
          entry_price: position.entry_price,
          last_price: last,
          market_value: value,
          unrealized_pnl: pnl,
          currency: info.currency,
          opened_at: position.opened_at,
        });
      }
    }
  }
  const tracker = channelId === null ? e.session : list[0].tracker;
  const dailyTrades = list.reduce((sum, c) => sum + c.daily_trades, 0);
  return {
    initial_equity: initial,
    equity,
    unrealized_pnl: unrealized,
    cash: Object.fromEntries([...cash].map(([currency, amount]) => [currency, amount.toString()])),
    positions,
    stats: {
      closed_trades: stats.closed_trades,
      wins: stats.wins,
      losses: stats.losses,
      gross_profit: stats.gross_profit.toString(),
      gross_loss: stats.gross_loss.toString(),
      fees: stats.fees.toString(),
      realized: stats.realized.toString(),
      orders: stats.orders,
      denied: stats.denied,
    },
    peak: tracker.peak,
    max_drawdown: tracker.max_drawdown,
    max_drawdown_days: tracker.max_drawdown_days,
    current_drawdown: tracker.peak > 0 ? Math.max(0, (tracker.peak - equity) / tracker.peak) : 0,
    daily_pnl: equity - tracker.day_start_equity,
    day_start_equity: tracker.day_start_equity,
    equity_days: tracker.equity_days.slice(),
    days_in_market: tracker.days_in_market,
    daily_trades: dailyTrades,
    state: channelId === null ? null : list[0].state,
    halt: channelId === null ? null : list[0].halt,
    pending_orders: e.pending.filter((o) => channelId === null || o.channel_id === channelId).map((o) => ({ ...o })),
  };
}
