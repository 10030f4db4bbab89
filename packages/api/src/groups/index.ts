import type { Services } from "@tp/adapters/services";
import type { Group } from "../http/group";
import type { RoutedGroup } from "../routes";
import { authGroup } from "./auth";
import { apiKeysGroup } from "./api-keys";
import { auditGroup } from "./audit";
import { killSwitchGroup } from "./kill-switch";
import { webhooksGroup } from "./webhooks";
import { stockDataGroup } from "./stock-data";
import { stockImportGroup } from "./stock-import";
import { stockCalendarGroup } from "./stock-calendar";
import { systemGroup } from "./system";
import { usersGroup } from "./users";
import { brokersGroup } from "./brokers";
import { dataSourcesGroup } from "./data-sources";
import { assetsGroup } from "./assets";
import { strategiesGroup } from "./strategies";
import { indicatorsGroup } from "./indicators";
import { riskGroup } from "./risk";
import { channelPresetsGroup } from "./channel-presets";
import { flowsGroup } from "./flows";
import { settingsGroup } from "./settings";
import { apiTestMarketGroup } from "./api-test-market";
import { apiTestTradeGroup } from "./api-test-trade";
import { tradingGroup } from "./trading";
import { backtestGroup } from "./backtest";
import { sweepsGroup } from "./sweeps";
import { biasChecksGroup } from "./bias-checks";
import { monteCarloGroup } from "./monte-carlo";
import { dataSyncGroup } from "./data-sync";
import { channelsGroup } from "./channels";
import { mtfGroup } from "./mtf";
import { simulationGroup } from "./simulation";

/**
 * Every endpoint group by name. The embedded runtime mounts them all on one server; on AWS
 * each becomes one Lambda behind the HTTP API (packages/functions/src/http/<name>.ts) with the
 * routes listed in `../routes.ts`.
 */
export const groups = {
  system: systemGroup,
  auth: authGroup,
  "api-keys": apiKeysGroup,
  audit: auditGroup,
  "kill-switch": killSwitchGroup,
  webhooks: webhooksGroup,
  users: usersGroup,
  "stock-data": stockDataGroup,
  "stock-import": stockImportGroup,
  "stock-calendar": stockCalendarGroup,
  brokers: brokersGroup,
  "data-sources": dataSourcesGroup,
  assets: assetsGroup,
  strategies: strategiesGroup,
  indicators: indicatorsGroup,
  risk: riskGroup,
  "channel-presets": channelPresetsGroup,
  flows: flowsGroup,
  settings: settingsGroup,
  "api-test-market": apiTestMarketGroup,
  "api-test-trade": apiTestTradeGroup,
  trading: tradingGroup,
  // Before sweeps and backtest: /api/v1/backtest/{id}/monte-carlo has a function of its own.
  "monte-carlo": monteCarloGroup,
  // Before sweeps and backtest: /api/v1/backtest/bias-checks/... is a bias check's, never a backtest id's.
  "bias-checks": biasChecksGroup,
  // Before backtest: /api/v1/backtest/sweeps/... is a sweep's, never a backtest id's.
  sweeps: sweepsGroup,
  backtest: backtestGroup,
  "data-sync": dataSyncGroup,
  channels: channelsGroup,
  mtf: mtfGroup,
  simulation: simulationGroup,
} satisfies Partial<Record<RoutedGroup, (services: Services) => Group>>;

export type GroupName = keyof typeof groups;
