/**
 * A front end's use of the client, as a browser app would write it (checked with strict
 * TypeScript and DOM types only by packages/client/sample/tsconfig.json, and run against the
 * embedded runtime by test/client/front-end-sample.test.ts): log in with the captcha, create a
 * backtest session, start a backtest and follow its progress on the socket, read the result,
 * place an order into a running session and handle a refusal by its `error_code`.
 */
import { createTradingClient, isApiError, unwrap, type SessionMessage, type WebSocketConstructor } from "../src/index";

export interface SampleConfig {
  baseUrl: string;
  username: string;
  password: string;
  /** What the user read off the captcha image (a test passes the service's CAPTCHA_TEST_CODE). */
  readCaptcha: (svg: string) => Promise<string>;
  /** Only where there is no global WebSocket (Node 20): the `ws` package's. */
  WebSocket?: WebSocketConstructor;
}

export interface SampleOutcome {
  stages: string[];
  lastProgress: number;
  totalReturn: string;
  trades: number;
  orderStatus: string;
  refusal: string;
}

export async function runFrontEnd(config: SampleConfig): Promise<SampleOutcome> {
  const client = createTradingClient({ baseUrl: config.baseUrl, WebSocket: config.WebSocket });

  // Log in: show the captcha, send what the user read with its id.
  const challenge = await client.captcha();
  await client.login({
    username: config.username,
    password: config.password,
    captcha: await config.readCaptcha(challenge.image),
    captcha_id: challenge.captcha_id,
  });

  // A backtest session, followed on its socket before the backtest starts.
  const session = unwrap(
    await client.api.POST("/api/v1/trading/sessions", {
      body: { session_name: "From the front end", trading_mode: "backtest", asset_mode: "simulated", initial_capital: 100_000, config: {} },
    }),
  );
  const stages: string[] = [];
  let lastProgress = 0;
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const stream = await client.followSession(session.id, {
    onMessage(message: SessionMessage) {
      if (message.type !== "backtest_progress") return;
      // `message.data` is the progress view, typed from the AsyncAPI document.
      if (stages.at(-1) !== message.data.stage) stages.push(message.data.stage);
      lastProgress = message.data.progress;
      if (message.data.stage === "done") finished();
    },
  });
  const started = unwrap(
    await client.api.POST("/api/v1/backtest/start", {
      body: {
        session_id: session.id,
        strategy_name: "ma_crossover",
        strategy_config: { fast_period: 5, slow_period: 20, execution: { timeframe: "1d" } },
        symbols: ["AAPL.US"],
        start_date: "2024-01-01",
        end_date: "2024-06-30",
        initial_capital: 100_000,
      },
    }),
  );
  if (!started.backtest_id) throw new Error(started.message);
  await done;
  stream.close();
  const result = unwrap(await client.api.GET("/api/v1/backtest/{backtest_id}/result", { params: { path: { backtest_id: started.backtest_id } } }));

  // A running simulation session: an order goes in; one for a symbol it does not trade is refused.
  const live = unwrap(
    await client.api.POST("/api/v1/trading/sessions", {
      body: {
        session_name: "Paper",
        trading_mode: "simulation",
        asset_mode: "simulated",
        initial_capital: 100_000,
        tradable_symbols: ["AAPL.US"],
        config: { strategy_name: "ma_crossover", symbols: ["AAPL.US"], timeframe: "1m" },
      },
    }),
  );
  unwrap(await client.api.POST("/api/v1/trading/sessions/{session_id}/start", { params: { path: { session_id: live.id } } }));
  const order = unwrap(await client.api.POST("/api/v1/trading/orders", { body: { session_id: live.id, symbol: "AAPL.US", side: "buy", quantity: "10" } }));

  let refusal = "";
  const { error } = await client.api.POST("/api/v1/trading/orders", { body: { session_id: live.id, symbol: "MSFT.US", side: "buy", quantity: "10" } });
  if (error) {
    // `error.error_code` is the union of the codes this operation answers.
    switch (error.error_code) {
      case "SYMBOL_NOT_IN_SESSION":
        refusal = `not traded here: ${String(error.detail)}`;
        break;
      case "SESSION_NOT_RUNNING":
      case "SESSION_NOT_TRADING":
        refusal = "start the session first";
        break;
      default:
        refusal = `refused: ${error.error_code}`;
    }
  }
  // The same refusal as an exception, for code that prefers try/catch.
  try {
    unwrap(await client.api.POST("/api/v1/trading/orders", { body: { session_id: live.id, symbol: "MSFT.US", side: "buy", quantity: "10" } }));
  } catch (caught) {
    if (!isApiError(caught, "SYMBOL_NOT_IN_SESSION")) throw caught;
  }

  await client.logout();
  return {
    stages,
    lastProgress,
    totalReturn: String(result.performance_metrics?.total_return),
    trades: result.trades.length,
    orderStatus: order.status,
    refusal,
  };
}
