import { DomainError } from "@tp/core/errors";
import type { MarketData, PushHandler } from "@tp/core/provider/market-data";
import type { PushCandlestickEvent } from "@tp/core/provider/quote-types";
import type { DynamoQuoteRelayStore, RelayRequest } from "../../stores/quote-relay-store";

/**
 * The quote connection of a provider that allows one per account (LongPort), served by the process
 * that holds it to every other (docs/live-trading.md "One quote connection"): `RelayedMarketData`
 * is the `MarketData` of a process that does not hold it (a function, a worker task that is not
 * the owner), and `serveQuoteRelay` is how the owner answers.
 */

/** The `MarketData` methods a relayed adapter asks the owner for (everything but the push handlers). */
const RELAYED = [
  "staticInfo",
  "quote",
  "depth",
  "trades",
  "intraday",
  "candlesticks",
  "historyCandlesticksByDate",
  "tradingDays",
  "tradingSession",
  "calcIndexes",
  "subscriptions",
  "subscribe",
  "unsubscribe",
  "subscribeCandlesticks",
  "unsubscribeCandlesticks",
  "realtimeQuote",
  "realtimeDepth",
  "realtimeTrades",
] as const satisfies readonly (keyof MarketData)[];
type Relayed = (typeof RELAYED)[number];

/** How often a caller looks for the owner's answer (ms). */
const ANSWER_POLL_MS = 25;

type RelayedMethods = { [M in Relayed]: MarketData[M] };

/** The relayed adapter's own members beside the port's methods. */
interface RelayedMarketDataBase {
  setOnQuote(handler: unknown): void;
  setOnDepth(handler: unknown): void;
  setOnTrades(handler: unknown): void;
  setOnCandlestick(handler: PushHandler<PushCandlestickEvent>): void;
  advance(): Promise<void>;
}

export type RelayedMarketData = MarketData & RelayedMarketDataBase;

/**
 * A `MarketData` whose calls the quote connection's owner answers through the table, each within
 * `timeoutMs` (504 `PROVIDER_TIMEOUT` otherwise: no worker task holds the connection, or it is
 * slow). Of the pushes it delivers the candlesticks of the feeds it subscribed, from the bars the
 * owner publishes (`advance`, called by the session worker every step); quotes, depth and trades
 * are pushed only where the connection is.
 */
export function relayedMarketData(store: DynamoQuoteRelayStore, options: { timeoutMs: number; wall?: () => number }): RelayedMarketData {
  const wall = options.wall ?? Date.now;
  let onCandlestick: PushHandler<PushCandlestickEvent> = null;
  /** The candlestick feeds subscribed (`symbol|period`), and the newest bar delivered of each (its open, ISO). */
  const feeds = new Map<string, string>();
  const feedOf = (symbol: string, period: string) => `${symbol}|${period}`;

  async function ask(method: Relayed, args: unknown[]): Promise<unknown> {
    const request: RelayRequest = { id: store.newId(), method, args, deadline: wall() + options.timeoutMs };
    await store.ask(request);
    while (wall() < request.deadline) {
      await new Promise((resolve) => setTimeout(resolve, ANSWER_POLL_MS));
      const answer = await store.answerOf(request.id);
      if (!answer) continue;
      if (answer.error) throw new DomainError(answer.error.status, answer.error.code, answer.error.message, answer.error.extra);
      return answer.result;
    }
    throw new DomainError(
      504,
      "PROVIDER_TIMEOUT",
      `No answer to ${method} within ${options.timeoutMs} ms from the session worker holding the provider's quote connection (is one running?)`,
      { provider: "longport" },
    );
  }

  const methods = Object.fromEntries(RELAYED.map((method) => [method, (...args: unknown[]) => ask(method, args)])) as unknown as RelayedMethods;
  return {
    ...methods,
    async subscribeCandlesticks(symbol, period, tradeSessions) {
      const latest = (await ask("subscribeCandlesticks", [symbol, period, tradeSessions])) as Awaited<ReturnType<MarketData["subscribeCandlesticks"]>>;
      // The session worker drops what it has seen already: every published bar of the feed is delivered from now on.
      if (!feeds.has(feedOf(symbol, period))) feeds.set(feedOf(symbol, period), "");
      return latest;
    },
    async unsubscribeCandlesticks(symbol, period) {
      feeds.delete(feedOf(symbol, period));
      await ask("unsubscribeCandlesticks", [symbol, period]);
    },
    setOnQuote: () => undefined,
    setOnDepth: () => undefined,
    setOnTrades: () => undefined,
    setOnCandlestick(handler) {
      onCandlestick = handler;
    },
    /** Delivers the owner's published bars of the subscribed feeds not delivered yet (the session worker's step calls it). */
    async advance() {
      if (!onCandlestick || feeds.size === 0) return;
      const published = await store.latestBars();
      for (const push of published?.pushes ?? []) {
        const key = feedOf(push.symbol, push.data.period);
        const newest = feeds.get(key);
        if (newest === undefined || push.data.candlestick.timestamp <= newest) continue;
        feeds.set(key, push.data.candlestick.timestamp);
        onCandlestick(push);
      }
    },
  };
}

/** How many requests the owner takes at once. */
const TAKEN_AT_ONCE = 25;

/**
 * The owner of the quote connection answers what was asked of it through the table: each request
 * taken once (its item deleted), run on `market` (the connection), its result or its error written
 * back. A request whose asker stopped waiting is dropped. Returns how many it answered.
 */
export async function serveQuoteRelay(store: DynamoQuoteRelayStore, market: MarketData, wall: () => number = Date.now): Promise<number> {
  const requests = await store.take(TAKEN_AT_ONCE);
  await Promise.all(
    requests.map(async (request) => {
      if (wall() > request.deadline || !(RELAYED as readonly string[]).includes(request.method)) return;
      try {
        const call = market[request.method as Relayed] as (...args: unknown[]) => Promise<unknown>;
        await store.answer({ id: request.id, result: (await call.apply(market, request.args)) ?? null });
      } catch (error) {
        const domain =
          error instanceof DomainError ? error : new DomainError(502, "PROVIDER_ERROR", `The quote connection failed ${request.method}: ${String(error)}`);
        await store.answer({ id: request.id, error: { status: domain.status, code: domain.code, message: domain.message, extra: domain.extra } });
      }
    }),
  );
  return requests.length;
}
