/** Raw JSONC of the `balanced-multi` channel preset, served verbatim with its comments. */
export const balancedMulti = `// Balanced multi-strategy preset.
// Half of the capital sits in a diversified trend-and-reversion channel; the rest is
// split between a small aggressive channel and a conservative one.
{
  "name": "Balanced Multi-Strategy",
  "description": "Trend following and mean reversion side by side on half of the capital, flanked by a 20% aggressive and a 30% conservative channel.",
  "channels": [
    {
      "channel_id": "aggressive",
      "channel_type": "AGGRESSIVE",
      "capital_allocation": 0.2,
      "strategies": [
        { "strategy_name": "donchian_breakout", "parameters": { "entry_period": 20, "exit_period": 10 }, "weight": 0.5 },
        { "strategy_name": "momentum", "parameters": { "lookback_period": 20, "entry_threshold": 5, "exit_threshold": 0 }, "weight": 0.5 }
      ],
      "risk_limits": { "max_drawdown": 0.2, "max_daily_loss": 0.05, "max_loss_per_trade": 0.02, "leverage_limit": 1.5 }
    },
    {
      "channel_id": "balanced",
      "channel_type": "BALANCED",
      "capital_allocation": 0.5,
      "strategies": [
        /* Trend and counter-trend legs offset each other's bad regimes. */
        { "strategy_name": "ma_crossover", "parameters": { "fast_period": 10, "slow_period": 30, "ma_type": "ema" }, "weight": 0.4 },
        { "strategy_name": "rsi_mean_reversion", "parameters": { "period": 14, "oversold": 30, "overbought": 70, "exit_level": 50 }, "weight": 0.3 },
        { "strategy_name": "macd_trend", "parameters": { "fast_period": 12, "slow_period": 26, "signal_period": 9 }, "weight": 0.3 },
      ],
      "risk_limits": { "max_drawdown": 0.15, "max_daily_loss": 0.03, "max_loss_per_trade": 0.015, "leverage_limit": 1 }
    },
    {
      "channel_id": "conservative",
      "channel_type": "CONSERVATIVE",
      "capital_allocation": 0.3,
      "strategies": [
        { "strategy_name": "trend_director", "parameters": { "fast_period": 50, "slow_period": 200 }, "weight": 1 }
      ],
      "risk_limits": { "max_drawdown": 0.1, "max_daily_loss": 0.02, "max_loss_per_trade": 0.01, "leverage_limit": 1 }
    }
  ]
}
`;
