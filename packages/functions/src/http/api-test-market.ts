import { apiTestMarketGroup } from "@tp/api/groups/api-test-market";
import { httpHandler } from "./handler";
export const handler = httpHandler(apiTestMarketGroup);
