import { settingsGroup } from "@tp/api/groups/settings";
import { brokerNetwork, settings } from "@tp/adapters/services";
import { httpHandler } from "./handler";
export const handler = httpHandler(settingsGroup, (c) => ({ brokerNetwork: brokerNetwork(c), settings: settings(c) }));
