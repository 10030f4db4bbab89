import { assetsGroup } from "@tp/api/groups/assets";
import { httpHandler } from "./handler";
export const handler = httpHandler(assetsGroup);
