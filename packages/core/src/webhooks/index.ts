/** Webhooks (docs/security.md "Webhooks"): the model, the API's use cases, the notification hook and the delivery worker's step. */
export * from "./webhook-model";
export * from "./webhook-format";
export * from "./webhooks";
export * from "./notify";
export * from "./deliver";
