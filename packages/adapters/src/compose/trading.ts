/**
 * The builders of trading: the session views and the session worker's command queue, backtests
 * (their control, workflow tasks and webhook notifications), bias checks, multi-channel sessions
 * with their notification hook, runs driven over stored candles, and `trading`, all of them.
 */
import { withSharedGets } from "../dynamo/shared-reads";
import { Sleeves } from "@tp/core/paper/sleeves";
import { TableQueue } from "../queues/table-queue";
import { SqsSessionCommands, TableSessionCommands } from "../queues/session-commands";
import {
  createBacktestControl,
  createBacktestServices,
  createBiasChecks,
  createSessionServices,
  withChannels,
  withDrivers,
  type TradingServices,
} from "../trading";
import type { SweepControlDeps } from "@tp/core/backtests/sweeps";
import type { BiasCheckDeps } from "@tp/core/backtests/bias-check-control";
import { CoalescingCommandSink, type SessionCommandSink, type SessionCommandSource } from "@tp/core/trading/worker/commands";
import type { SessionNotifier } from "@tp/core/webhooks/index";
import { notifyUser, sessionNotifier, workflowEnded } from "@tp/core/webhooks/notify";
import type { StoredBacktest } from "@tp/core/backtests/backtest-model";
import { Lru } from "../lru";
import { type ServiceContext, once } from "./context";
import { workflows, realtime } from "./platform";
import { candles, marketData, paperAccounts, marketProviders, imports } from "./market";
import { killSwitch } from "./kill-switch";
import { notifier } from "./webhooks";

/** Trading sessions, their runs and views. */
export function tradingSessions(c: ServiceContext): TradingServices["sessions"] {
  // A burst of commands into one session shares its reads and its messages to the worker (docs/session-worker.md "Commands from the API").
  return once(c, tradingSessions, () => {
    const views = sessionViews(c);
    return Object.assign(views, { commands: new CoalescingCommandSink(sessionCommands(c)), sessions: withSharedGets(views.sessions) });
  });
}

/**
 * The session views without the session worker's command queue: the same record `tradingSessions`
 * completes where both are built. Functions that build only this (the channel and MTF routes, the
 * day rollover) leave the SQS client out of their bundles; the worker picks up the sessions they
 * start or stop on its next refresh (docs/session-worker.md).
 */
export function sessionViews(c: ServiceContext): TradingServices["sessions"] {
  return once(c, sessionViews, () =>
    createSessionServices(
      c.config,
      c.db,
      { now: c.marketNow, newId: c.newId },
      {
        marketData: marketData(c),
        paper: paperAccounts(c),
        // A live session trades the account at the selected provider: LongPort's, or under the simulated provider the user's paper account.
        async buyingPower(userId, currency) {
          const active = await marketProviders(c).active();
          if (active.type === "longport") return (await (await active.orderGateway(userId)).accountBalance(currency))[0]?.buy_power ?? null;
          return (await Sleeves.freeCash(paperAccounts(c), userId, currency))?.toFixed() ?? null;
        },
        killSwitch: killSwitch(c).guard,
      },
    ),
  );
}

/** The session worker's command queue (docs/session-worker.md): SQS FIFO when configured, the table-backed queue otherwise. */
export function sessionCommands(c: ServiceContext): SessionCommandSink & SessionCommandSource {
  return once(c, sessionCommands, () =>
    c.config.sessionCommandsUrl ? new SqsSessionCommands(c.config.sessionCommandsUrl) : new TableSessionCommands(new TableQueue(c.db, c.now)),
  );
}

/** Starting, controlling and reading backtests (the HTTP endpoints; the workflow's tasks need `tradingBacktests`). */
export function backtestControl(c: ServiceContext): SweepControlDeps {
  return once(c, backtestControl, () =>
    createBacktestControl(c.config, c.db, { now: c.marketNow, newId: c.newId }, { candles: candles(c), marketData: marketData(c), workflows: workflows(c) }),
  );
}

/** Bias checks of a strategy over stored candles (docs/backtests.md "Bias checks"): synchronous runs, reports stored. */
export function biasChecks(c: ServiceContext): BiasCheckDeps {
  return once(c, biasChecks, () => createBiasChecks(c.config, c.db, { now: c.marketNow, newId: c.newId }, { candles: candles(c), marketData: marketData(c) }));
}

/** Backtests and their workflow tasks. */
export function tradingBacktests(c: ServiceContext): TradingServices["backtests"] {
  return once(c, tradingBacktests, () =>
    createBacktestServices(
      c.config,
      c.db,
      { now: c.marketNow, newId: c.newId },
      { candles: candles(c), imports: imports(c), marketData: marketData(c), workflows: workflows(c) },
    ),
  );
}

/**
 * Multi-channel sessions: the session views (the same record) with configuration versions, the
 * update feed, the socket and the webhooks' notification hook on the sessions' streams (docs/operations.md
 * "Where events come from"): every runtime that publishes notifies.
 */
export function tradingChannels(c: ServiceContext): TradingServices["channels"] {
  return once(c, tradingChannels, () => Object.assign(withChannels(sessionViews(c), c.db, realtime(c)), { notify: sessionNotifications(c) }));
}

/** Runs driven over stored candles (replays, historical MTF sessions): the session views (the same record) with the candles; their speed counts seconds of `now`, the wall clock, not of the market's (accelerated) one. */
export function tradingDrivers(c: ServiceContext): TradingServices["drivers"] {
  return once(c, tradingDrivers, () => withDrivers(sessionViews(c), c.db, candles(c), c.now));
}

/** Every trading service (the session worker, `npm start`, the docs function). */
export function trading(c: ServiceContext): TradingServices {
  return once(c, trading, () => ({
    sessions: tradingSessions(c),
    backtests: notifyingBacktests(c),
    channels: tradingChannels(c),
    drivers: tradingDrivers(c),
    biasChecks: biasChecks(c),
  }));
}

/** The sessions' streams' hook: a session's owner read once per process (it never changes), then `notifier`. */
export function sessionNotifications(c: ServiceContext): SessionNotifier {
  return once(c, sessionNotifications, () => {
    const owners = new Lru<string, string>(50_000);
    return sessionNotifier(notifier(c), async (sessionId) => {
      const known = owners.get(sessionId);
      if (known) return known;
      const owner = (await sessionViews(c).sessions.get(sessionId))?.user_id;
      if (owner) owners.set(sessionId, owner);
      return owner;
    });
  });
}

/** Backtests whose end (not a sweep's run's) is told to the owner's webhooks (`backtest_completed`): the workflow's tasks' services. */
export function notifyingBacktests(c: ServiceContext): TradingServices["backtests"] {
  return once(c, notifyingBacktests, () =>
    Object.assign(tradingBacktests(c), {
      onEnded: async (backtest: StoredBacktest) => {
        const data = {
          strategy_name: backtest.strategy_name,
          symbols: backtest.symbols,
          final_capital: backtest.result?.final_capital ?? null,
          error: backtest.error,
        };
        await notifyUser(notifier(c), backtest.user_id, [workflowEnded("backtest_completed", backtest, c.now(), data)]);
      },
    }),
  );
}
