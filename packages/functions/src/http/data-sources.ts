import { dataSourcesGroup } from "@tp/api/groups/data-sources";
import { dataSources } from "@tp/adapters/services";
import { httpHandler } from "./handler";
export const handler = httpHandler(dataSourcesGroup, (c) => ({ dataSources: dataSources(c) }));
