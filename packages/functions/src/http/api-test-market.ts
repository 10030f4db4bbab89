import { apiTestMarketGroup } from "@tp/api/groups/api-test-market";
import { marketProviders } from "@tp/adapters/compose/market";
import { httpHandler } from "./handler";
export const handler = httpHandler(apiTestMarketGroup, (c) => ({ providers: marketProviders(c) }));
