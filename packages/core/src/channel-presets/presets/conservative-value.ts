/** Raw JSONC of the `conservative-value` channel preset, served verbatim with its comments. */
export const conservativeValue = `// Conservative value preset.
// Buys weakness in long-term uptrends and holds; most capital is in the conservative
// channel with tight limits and no leverage.
{
  "name": "Conservative Value",
  "description": "Dip buying inside long-term uptrends on 60% of capital under tight limits, with smaller balanced and aggressive sleeves.",
  "channels": [
    {
      "channel_id": "value",
      "channel_type": "CONSERVATIVE",
      "capital_allocation": 0.6,
      "strategies": [
        // Deep oversold entries only; exit once RSI is back to neutral.
        { "strategy_name": "rsi_mean_reversion", "parameters": { "period": 14, "oversold": 25, "overbought": 75, "exit_level": 50 }, "weight": 0.5 },
        { "strategy_name": "ma_crossover", "parameters": { "fast_period": 50, "slow_period": 200, "ma_type": "sma" }, "weight": 0.5 }
      ],
      /* Tightest limits of the three presets: a 1.5% daily loss halts the channel for the day. */
      "risk_limits": { "max_drawdown": 0.08, "max_daily_loss": 0.015, "max_loss_per_trade": 0.0075, "leverage_limit": 1 }
    },
    {
      "channel_id": "balanced",
      "channel_type": "BALANCED",
      "capital_allocation": 0.3,
      "strategies": [
        // Pullbacks in the direction of the 50-bar trend.
        { "strategy_name": "pullback_executor", "parameters": { "rsi_period": 14, "pullback_level": 40, "exit_level": 65, "trend_period": 50 }, "weight": 1 }
      ],
      "risk_limits": { "max_drawdown": 0.12, "max_daily_loss": 0.03, "max_loss_per_trade": 0.015, "leverage_limit": 1 }
    },
    {
      "channel_id": "growth",
      "channel_type": "AGGRESSIVE",
      "capital_allocation": 0.1,
      "strategies": [
        { "strategy_name": "macd_trend", "parameters": { "fast_period": 12, "slow_period": 26, "signal_period": 9 }, "weight": 1 }
      ],
      "risk_limits": { "max_drawdown": 0.2, "max_daily_loss": 0.05, "max_loss_per_trade": 0.02, "leverage_limit": 1 }
    }
  ]
}
`;
