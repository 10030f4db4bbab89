import { apiTestTradeGroup } from "@tp/api/groups/api-test-trade";
import { killSwitch } from "@tp/adapters/compose/kill-switch";
import { providers } from "@tp/adapters/compose/market";
import { httpHandler } from "./handler";
export const handler = httpHandler(apiTestTradeGroup, (c) => ({ providers: providers(c), killSwitch: killSwitch(c) }));
