import { strategiesGroup } from "@tp/api/groups/strategies";
import { httpHandler } from "./handler";
export const handler = httpHandler(strategiesGroup, () => ({}));
