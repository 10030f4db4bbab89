import { assetsGroup } from "@tp/api/groups/assets";
import { assets } from "@tp/adapters/services";
import { httpHandler } from "./handler";
export const handler = httpHandler(assetsGroup, (c) => ({ assets: assets(c) }));
