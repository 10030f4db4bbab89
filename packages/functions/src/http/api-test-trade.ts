import { apiTestTradeGroup } from "@tp/api/groups/api-test-trade";
import { providers } from "@tp/adapters/services";
import { httpHandler } from "./handler";
export const handler = httpHandler(apiTestTradeGroup, (c) => ({ providers: providers(c) }));
