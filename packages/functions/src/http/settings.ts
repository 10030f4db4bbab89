import { settingsGroup } from "@tp/api/groups/settings";
import { brokerNetwork } from "@tp/adapters/compose/brokers";
import { settings } from "@tp/adapters/compose/market";
import { httpHandler } from "./handler";
export const handler = httpHandler(settingsGroup, (c) => ({ brokerNetwork: brokerNetwork(c), settings: settings(c) }));
