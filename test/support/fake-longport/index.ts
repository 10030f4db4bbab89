/**
 * A protocol-level fake of LongPort's OpenAPI for tests: the real `longport` SDK talks to it over
 * HTTP (signed REST calls) and two WebSockets (LongPort's binary framing with protobuf bodies),
 * so the adapters can be driven end to end without a LongPort host.
 *
 *   const fake = await startFakeLongport({ start: "2024-01-02T14:30:00Z" });
 *   const { Config, TradeContext } = await import("longport");
 *   const trade = await TradeContext.new(new Config(fake.config()));
 *   fake.account.fill(orderId, { quantity: 40, price: 189.9 });     // pushes PartialFilled
 *   fake.pushTrade("AAPL.US", { price: 190.2, volume: 100 });          // at the trading clock's now
 *   fake.faults.refuseNextSubmit(602012, "insufficient buying power");
 *   await fake.close();
 *
 * Modules: http-api (REST, signature, trade-call limit), gateway (sockets, auth, heartbeat),
 * quote-socket and trade-socket (commands, pushes), framing and protobuf (+ messages: the
 * tables), market, candles, calendar and account (state), clock, faults, credentials.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { ConfigParams } from "longport";
import { WebSocketServer } from "ws";
import { FakeAccount } from "./account";
import { TradingClock } from "./clock";
import { type Credentials, CredentialStore } from "./credentials";
import { Faults } from "./faults";
import { Gateway, type GatewayKind, type SocketCommandRecord } from "./gateway";
import { type CallRecord, httpApi, type TradeRateLimit } from "./http-api";
import { FakeMarket, type SecuritySpec, type TradeRecord, type TradeTick } from "./market";
import { type QuoteRateLimit, QuoteService } from "./quote-socket";
import { TradeService } from "./trade-socket";

export type { FakeExecution, FakeOrder, NewOrder, OrderStatus } from "./account";
export { ApiError, FakeAccount } from "./account";
export { Period } from "./candles";
export { TradingClock } from "./clock";
export type { Credentials } from "./credentials";
export { type ApiReply, Faults, LongportErrors, PushGate } from "./faults";
export type { CallRecord } from "./http-api";
export { FakeMarket, type SecuritySpec, type TradeTick } from "./market";
export { Command, SubType, TradeSession } from "./messages";

export interface FakeLongportOptions {
  /** The app key, secret and access token the fake accepts (default: a set unique to this fake). */
  credentials?: Credentials;
  /** Where the trading clock starts (default 2024-01-02 10:00 New York, a Tuesday in session). */
  start?: number | string | Date;
  /** Listed securities (default: AAPL.US at 190, 700.HK at 300). */
  securities?: SecuritySpec[];
  /** Cash per currency (default: USD 100,000 and HKD 500,000). */
  cash?: Record<string, number>;
  /** Stock positions held at the start. */
  positions?: { symbol: string; quantity: number; cost: number }[];
  /** The trade-call limit the HTTP API enforces (default LongPort's 30 per 30 s; min interval off). */
  tradeRateLimit?: Partial<TradeRateLimit>;
  /**
   * What the quote profile announces per command (default 10 per second, burst 20, as LongPort's
   * 10 calls a second); `null` announces none, so the SDK does not pace (and connects without its ~1 s wait).
   */
  quoteRateLimit?: QuoteRateLimit | null;
  /** Sockets of all kinds per app key the socket token reports as the limit (default 10, as LongPort's docs show). */
  connectionLimit?: number;
  /** Authenticated quote sockets per app key (default 1: LongPort allows one quote long connection per account). */
  quoteConnectionLimit?: number;
  /** WebSocket ping interval (default 10 s; the SDK treats a long silence as a dead socket). */
  pingIntervalMs?: number;
  /** Refuse a repeated signature with 403202 (default off). */
  rejectDuplicates?: boolean;
}

export interface FakeLongport {
  httpUrl: string;
  quoteWsUrl: string;
  tradeWsUrl: string;
  credentials: Credentials;
  /** `new Config(fake.config())` points the real SDK at the fake. */
  config(overrides?: Partial<ConfigParams>): ConfigParams;
  clock: TradingClock;
  market: FakeMarket;
  account: FakeAccount;
  faults: Faults;
  /** Every HTTP request, in arrival order. */
  calls: CallRecord[];
  /** Requests that counted against the trade-call limit. */
  tradeCalls(): CallRecord[];
  /** Every socket request answered (both gateways). */
  socketCommands: SocketCommandRecord[];
  /** Pushes a trade tick (then the quote it moves) to the quote sockets subscribed to `symbol`. */
  pushTrade(symbol: string, tick: TradeTick): TradeRecord;
  /**
   * Plays ticks in time order: the clock moves to each tick's time (default: `everyMs` after the
   * last) and the tick is pushed; `pauseMs` of real time between ticks lets the SDK keep up.
   */
  playTrades(symbol: string, ticks: TradeTick[], options?: { everyMs?: number; pauseMs?: number }): Promise<TradeRecord[]>;
  /** Makes an access token (default: all) answer 401003 "token expired" (a token also expires when the trading clock passes its expiry, 90 days after the start). */
  expireToken(accessToken?: string): void;
  /** Closes the sockets of a gateway (default both); the SDK reconnects by itself. Returns how many closed. */
  dropSockets(kind?: GatewayKind | "all", how?: "terminate" | "close"): number;
  /** While down, a gateway refuses new WebSocket connections (HTTP 503). */
  setSocketsDown(down: boolean, kind?: GatewayKind | "all"): void;
  /** Authenticated sockets now open on a gateway. */
  openSockets(kind: GatewayKind): number;
  /** WebSocket upgrades a gateway refused while down (the SDK's reconnect attempts). */
  refusedUpgrades(kind: GatewayKind): number;
  close(): Promise<void>;
}

let instances = 0;

/**
 * Credentials unique to each fake: an SDK context left over from an earlier fake keeps
 * reconnecting on its own, and must not authenticate against a later fake that got the same port.
 */
const uniqueCredentials = (): Credentials => {
  const n = `${process.pid}-${++instances}`;
  return { appKey: `fake-app-key-${n}`, appSecret: `fake-app-secret-${n}`, accessToken: `fake-access-token-${n}` };
};

/** Starts the fake on a free loopback port: HTTP at `/`, the quote gateway at `/quote`, the trade gateway at `/trade`. */
export async function startFakeLongport(options: FakeLongportOptions = {}): Promise<FakeLongport> {
  const credentials = options.credentials ?? uniqueCredentials();
  const clock = new TradingClock(options.start ?? "2024-01-02T15:00:00Z");
  const store = new CredentialStore(() => clock.now());
  store.add(credentials);
  const market = new FakeMarket(clock);
  for (const spec of options.securities ?? [
    { symbol: "AAPL.US", nameEn: "Apple Inc.", nameCn: "苹果", prevClose: 190 },
    { symbol: "700.HK", nameEn: "TENCENT", nameCn: "腾讯控股", prevClose: 300 },
  ]) {
    market.add(spec);
  }
  const account = new FakeAccount(clock, market);
  for (const [currency, amount] of Object.entries(options.cash ?? { USD: 100_000, HKD: 500_000 })) account.cash.set(currency, amount);
  for (const p of options.positions ?? []) account.positions.set(p.symbol, { quantity: p.quantity, cost: p.cost });
  const faults = new Faults();
  const calls: CallRecord[] = [];
  const socketCommands: SocketCommandRecord[] = [];
  const pingIntervalMs = options.pingIntervalMs ?? 10_000;

  const quoteService = new QuoteService(market, faults, options.quoteRateLimit === undefined ? { limit: 10, burst: 20 } : options.quoteRateLimit);
  const tradeService = new TradeService(account, market);
  const quote: Gateway = new Gateway({
    kind: "quote",
    credentials: store,
    gate: faults.quotePushes,
    connectionLimit: options.quoteConnectionLimit ?? 1,
    pingIntervalMs,
    records: socketCommands,
    handle: (connection, command, body) => quoteService.handle(quote, connection, command, body),
  });
  const trade = new Gateway({
    kind: "trade",
    credentials: store,
    gate: faults.tradePushes,
    connectionLimit: options.connectionLimit ?? 10,
    pingIntervalMs,
    records: socketCommands,
    handle: (connection, command, body) => tradeService.handle(connection, command, body),
  });
  market.onPush((push) => quoteService.deliver(quote, push));
  account.onOrderChanged((order) => tradeService.deliver(trade, order));

  const connectionLimit = options.connectionLimit ?? 10;
  const handler = httpApi({
    credentials: store,
    account,
    market,
    clock,
    faults,
    tradeRateLimit: { max: 30, windowMs: 30_000, minIntervalMs: 0, ...options.tradeRateLimit },
    connectionLimit,
    onlineSockets: (appKey) => quote.authenticated(appKey).length + trade.authenticated(appKey).length,
    rejectDuplicates: options.rejectDuplicates ?? false,
    records: calls,
  });
  const server = createServer(handler);
  const wss = new WebSocketServer({ noServer: true });
  const gateways: Record<GatewayKind, Gateway> = { quote, trade };
  server.on("upgrade", (request, socket, head) => {
    const path = (request.url ?? "").split("?")[0].replace(/\/+$/, "");
    const gateway = path === "/quote" ? quote : path === "/trade" ? trade : undefined;
    if (!gateway || gateway.down) {
      if (gateway) gateway.refused++;
      socket.end(`HTTP/1.1 ${gateway ? "503 Service Unavailable" : "404 Not Found"}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => gateway.accept(ws, request));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const httpUrl = `http://127.0.0.1:${port}`;
  const quoteWsUrl = `ws://127.0.0.1:${port}/quote`;
  const tradeWsUrl = `ws://127.0.0.1:${port}/trade`;
  const kinds = (kind: GatewayKind | "all") => (kind === "all" ? [quote, trade] : [gateways[kind]]);

  return {
    httpUrl,
    quoteWsUrl,
    tradeWsUrl,
    credentials,
    config: (overrides = {}) => ({ ...credentials, httpUrl, quoteWsUrl, tradeWsUrl, enablePrintQuotePackages: false, ...overrides }),
    clock,
    market,
    account,
    faults,
    calls,
    tradeCalls: () => calls.filter((c) => c.tradeCall),
    socketCommands,
    pushTrade: (symbol, tick) => market.trade(symbol, tick),
    playTrades: async (symbol, ticks, { everyMs = 1_000, pauseMs = 0 } = {}) => {
      const played: TradeRecord[] = [];
      for (const tick of ticks) {
        const at = tick.at === undefined ? clock.advance(everyMs) : clock.set(tick.at);
        played.push(market.trade(symbol, { ...tick, at }));
        if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
      }
      return played;
    },
    expireToken: (accessToken) => store.expire(accessToken),
    dropSockets: (kind = "all", how = "terminate") => kinds(kind).reduce((n, g) => n + g.drop(how), 0),
    setSocketsDown: (down, kind = "all") => {
      for (const g of kinds(kind)) g.down = down;
    },
    openSockets: (kind) => gateways[kind].authenticated().length,
    refusedUpgrades: (kind) => gateways[kind].refused,
    close: async () => {
      for (const g of [quote, trade]) g.drop("terminate");
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
