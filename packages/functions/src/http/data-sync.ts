import { dataSyncGroup } from "@tp/api/groups/data-sync";
import { httpHandler } from "./handler";
export const handler = httpHandler(dataSyncGroup);
