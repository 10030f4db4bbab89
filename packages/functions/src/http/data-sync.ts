import { dataSyncGroup } from "@tp/api/groups/data-sync";
import { dataSync } from "@tp/adapters/compose/market";
import { httpHandler } from "./handler";
export const handler = httpHandler(dataSyncGroup, (c) => ({ dataSync: dataSync(c) }));
