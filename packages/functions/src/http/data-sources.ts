import { dataSourcesGroup } from "@tp/api/groups/data-sources";
import { httpHandler } from "./handler";
export const handler = httpHandler(dataSourcesGroup);
