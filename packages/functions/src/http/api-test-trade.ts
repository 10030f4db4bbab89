import { apiTestTradeGroup } from "@tp/api/groups/api-test-trade";
import { httpHandler } from "./handler";
export const handler = httpHandler(apiTestTradeGroup);
