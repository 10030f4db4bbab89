import { indicatorsGroup } from "@tp/api/groups/indicators";
import { httpHandler } from "./handler";
export const handler = httpHandler(indicatorsGroup, () => ({}));
