import { riskGroup } from "@tp/api/groups/risk";
import { httpHandler } from "./handler";
export const handler = httpHandler(riskGroup, () => ({}));
