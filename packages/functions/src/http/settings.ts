import { settingsGroup } from "@tp/api/groups/settings";
import { httpHandler } from "./handler";
export const handler = httpHandler(settingsGroup);
