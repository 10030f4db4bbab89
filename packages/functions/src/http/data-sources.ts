import { dataSourcesGroup } from "@tp/api/groups/data-sources";
import { dataSources } from "@tp/adapters/compose/brokers";
import { httpHandler } from "./handler";
export const handler = httpHandler(dataSourcesGroup, (c) => ({ dataSources: dataSources(c) }));
