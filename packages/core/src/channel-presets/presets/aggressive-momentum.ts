/** Raw JSONC of the `aggressive-momentum` channel preset, served verbatim with its comments. */
export const aggressiveMomentum = `// Aggressive momentum preset.
// Most of the capital chases strong trends and breakouts; a small conservative
// channel keeps a long-term trend position as ballast.
{
  "name": "Aggressive Momentum",
  "description": "Momentum and breakout strategies on 60% of capital with up to 2x leverage, a trend channel and a small long-term reserve.",
  "channels": [
    {
      "channel_id": "momentum",
      "channel_type": "AGGRESSIVE",
      "capital_allocation": 0.6, // fraction of the session's capital
      "strategies": [
        // Rate of change over 10 bars: enter above +4%, leave when momentum fades to zero.
        { "strategy_name": "momentum", "parameters": { "lookback_period": 10, "entry_threshold": 4, "exit_threshold": 0 }, "weight": 0.5 },
        // Classic turtle breakout: 20-bar high to enter, 10-bar low to exit.
        { "strategy_name": "donchian_breakout", "parameters": { "entry_period": 20, "exit_period": 10 }, "weight": 0.3 },
        { "strategy_name": "bollinger_breakout", "parameters": { "period": 20, "std_dev": 2 }, "weight": 0.2 },
      ],
      /* Wide limits: this channel is expected to swing. */
      "risk_limits": { "max_drawdown": 0.25, "max_daily_loss": 0.06, "max_loss_per_trade": 0.03, "leverage_limit": 2 }
    },
    {
      "channel_id": "trend",
      "channel_type": "BALANCED",
      "capital_allocation": 0.3,
      "strategies": [
        { "strategy_name": "macd_trend", "parameters": { "fast_period": 12, "slow_period": 26, "signal_period": 9 }, "weight": 0.6 },
        { "strategy_name": "ema_trend", "parameters": { "fast_period": 20, "slow_period": 50 }, "weight": 0.4 }
      ],
      "risk_limits": { "max_drawdown": 0.15, "max_daily_loss": 0.04, "max_loss_per_trade": 0.02, "leverage_limit": 1.5 }
    },
    {
      "channel_id": "reserve",
      "channel_type": "CONSERVATIVE",
      "capital_allocation": 0.1,
      "strategies": [
        // Golden cross / death cross on daily bars.
        { "strategy_name": "ma_crossover", "parameters": { "fast_period": 50, "slow_period": 200, "ma_type": "sma" }, "weight": 1 }
      ],
      "risk_limits": { "max_drawdown": 0.08, "max_daily_loss": 0.02, "max_loss_per_trade": 0.01, "leverage_limit": 1 }
    }
  ]
}
`;
