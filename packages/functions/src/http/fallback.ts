import { createFallbackApp } from "@tp/api/app";
import { assets } from "@tp/adapters/compose/brokers";
import { httpHandler } from "./handler";

/** The HTTP API's `$default`: the trailing-slash list endpoints of assets, strategies and indicators, and the 404 of unknown paths. */
export const handler = httpHandler(createFallbackApp, (c) => ({ assets: assets(c) }), { app: true });
