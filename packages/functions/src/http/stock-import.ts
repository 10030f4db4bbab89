import { stockImportGroup } from "@tp/api/groups/stock-import";
import { imports } from "@tp/adapters/compose/market";
import { httpHandler } from "./handler";
export const handler = httpHandler(stockImportGroup, (c) => ({ imports: imports(c) }));
