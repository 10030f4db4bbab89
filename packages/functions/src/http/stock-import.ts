import { stockImportGroup } from "@tp/api/groups/stock-import";
import { httpHandler } from "./handler";
export const handler = httpHandler(stockImportGroup);
