import { biasChecksGroup } from "@tp/api/groups/bias-checks";
import { biasChecks } from "@tp/adapters/compose/trading";
import { httpHandler } from "./handler";
export const handler = httpHandler(biasChecksGroup, (c) => ({ trading: { biasChecks: biasChecks(c) } }));
