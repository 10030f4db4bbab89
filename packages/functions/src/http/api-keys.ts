import { apiKeysGroup } from "@tp/api/groups/api-keys";
import { apiKeys } from "@tp/adapters/compose/users";
import { httpHandler } from "./handler";
export const handler = httpHandler(apiKeysGroup, (c) => ({ apiKeys: apiKeys(c) }));
