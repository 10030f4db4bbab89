import { assetsGroup } from "@tp/api/groups/assets";
import { assets } from "@tp/adapters/compose/brokers";
import { httpHandler } from "./handler";
export const handler = httpHandler(assetsGroup, (c) => ({ assets: assets(c) }));
