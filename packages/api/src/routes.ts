/**
 * The API Gateway routes of each endpoint group (one Lambda per group). Kept free of
 * imports so the Api stack can read it at synth time; `groups/index.ts` pairs each name
 * with its app, and a test checks that every route the apps serve is routed here.
 */
export const groupRoutes = {
  system: ["GET /", "GET /health", "GET /cache/status", "GET /cache/test"],
  // The docs function serves the written OpenAPI and AsyncAPI documents and the docs page (it holds no group).
  docs: ["GET /openapi.json", "GET /asyncapi.json", "GET /docs", "GET /docs/assets/{name}"],
  // `$default`: the trailing-slash forms of list endpoints (`/api/v1/strategies/`; route keys cannot end
  // in "/") reach the groups that serve them, and unknown paths get the service's own 404.
  fallback: ["$default"],
  auth: ["GET /api/v1/captcha", "POST /api/v1/login", "POST /api/v1/logout", "GET /api/v1/me"],
  "api-keys": ["ANY /api/v1/auth/api-keys", "ANY /api/v1/auth/api-keys/{proxy+}"],
  audit: ["GET /api/v1/audit"],
  "kill-switch": ["ANY /api/v1/kill-switch", "ANY /api/v1/kill-switch/{proxy+}"],
  webhooks: ["ANY /api/v1/webhooks", "ANY /api/v1/webhooks/{proxy+}"],
  users: ["ANY /api/v1/users", "ANY /api/v1/users/{proxy+}"],
  brokers: ["ANY /api/v1/brokers", "ANY /api/v1/brokers/{proxy+}"],
  "data-sources": ["ANY /api/v1/data-sources", "ANY /api/v1/data-sources/{proxy+}"],
  assets: ["ANY /api/v1/assets", "ANY /api/v1/assets/{proxy+}"],
  strategies: ["ANY /api/v1/strategies", "ANY /api/v1/strategies/{proxy+}"],
  indicators: ["ANY /api/v1/indicators", "ANY /api/v1/indicators/{proxy+}"],
  // Explicit keys: /api/v1/risk/sessions/... belongs to trading sessions.
  risk: [
    "GET /api/v1/risk/presets",
    "GET /api/v1/risk/presets/{preset_name}",
    "GET /api/v1/risk/default",
    "GET /api/v1/risk/conservative",
    "GET /api/v1/risk/aggressive",
    "POST /api/v1/risk/validate",
  ],
  "channel-presets": ["ANY /api/v1/channel-presets/{proxy+}"],
  flows: ["ANY /api/v1/flows", "ANY /api/v1/flows/{proxy+}"],
  "stock-import": ["ANY /api/v1/stock-import/{proxy+}"],
  settings: ["ANY /api/v1/settings/{proxy+}"],
  // The trade pass-through endpoints (/api/v1/api-test/trade/*) are another group.
  "api-test-market": ["ANY /api/v1/api-test/pull/{proxy+}", "ANY /api/v1/api-test/subscription/{proxy+}"],
  "api-test-trade": ["ANY /api/v1/api-test/trade/{proxy+}"],
  "stock-calendar": ["ANY /api/v1/stock-calendar/{proxy+}"],
  trading: ["ANY /api/v1/trading/{proxy+}", "ANY /api/v1/risk/sessions/{proxy+}"],
  // More specific than trading's keys, so API Gateway sends these here: MTF sessions and replays.
  mtf: [
    "ANY /api/v1/trading/mtf/{proxy+}",
    "POST /api/v1/trading/sessions/{session_id}/replay/start",
    "POST /api/v1/trading/sessions/{session_id}/replay/control",
    "GET /api/v1/trading/sessions/{session_id}/replay/status",
  ],
  // More specific than trading's keys: orders on the simulated venue need the paper broker, which the trading function does not carry.
  simulation: ["POST /api/v1/trading/simulation/orders"],
  backtest: ["GET /api/v1/backtest", "ANY /api/v1/backtest/{proxy+}"],
  // More specific than backtest's keys: parameter sweeps have a function of their own.
  sweeps: ["ANY /api/v1/backtest/sweeps", "ANY /api/v1/backtest/sweeps/{proxy+}"],
  // More specific than backtest's keys: bias checks have a function of their own.
  "bias-checks": ["ANY /api/v1/backtest/bias-checks", "ANY /api/v1/backtest/bias-checks/{proxy+}"],
  // More specific than backtest's keys: Monte Carlo has a function of its own (the backtest function is at its size limit).
  "monte-carlo": ["POST /api/v1/backtest/{backtest_id}/monte-carlo"],
  "data-sync": ["ANY /api/v1/data-sync/{proxy+}"],
  // Multi-channel sessions under both of the interface's prefixes.
  channels: ["ANY /api/v1/sessions/{proxy+}", "ANY /api/v1/channels/sessions/{proxy+}"],
  "stock-data": ["POST /api/v1/stock-data", "GET /api/v1/stock-data", "ANY /api/v1/stock-data/{proxy+}", "GET /api/v1/stock-codes"],
} as const;

export type RoutedGroup = keyof typeof groupRoutes;
