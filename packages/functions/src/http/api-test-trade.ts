import { apiTestTradeGroup } from "@tp/api/groups/api-test-trade";
import { killSwitch, providers } from "@tp/adapters/services";
import { httpHandler } from "./handler";
export const handler = httpHandler(apiTestTradeGroup, (c) => ({ providers: providers(c), killSwitch: killSwitch(c) }));
