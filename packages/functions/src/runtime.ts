import { contextFromEnv } from "@tp/adapters/env-context";
import { allServices, type Services } from "@tp/adapters/services";
import type { ServiceContext } from "@tp/adapters/compose/context";

let context: Promise<ServiceContext> | undefined;

/**
 * The Lambda composition root's context: configuration from the environment, keys from Secrets
 * Manager, built once per container and shared by every invocation (and every service built on it).
 */
export function lambdaContext(env: NodeJS.ProcessEnv = process.env): Promise<ServiceContext> {
  // The functions ask the worker task holding the provider's one quote connection (docs/live-trading.md "One quote connection").
  context ??= contextFromEnv({ QUOTE_CONNECTION: "relay", ...env });
  context.catch(() => (context = undefined));
  return context;
}

/**
 * What one function's handler uses, composed on the Lambda context: `compose` names the
 * services (the builders of `@tp/adapters/compose/*`), so the function builds, and bundles,
 * those alone. Resolved once per container.
 */
export function lambdaComposition<S>(compose: (context: ServiceContext) => S): () => Promise<S> {
  let composed: Promise<S> | undefined;
  return () => {
    composed ??= lambdaContext().then(compose);
    composed.catch(() => (composed = undefined));
    return composed;
  };
}

/** Every service on the Lambda context (a function composes only its own). */
export function lambdaServices(env: NodeJS.ProcessEnv = process.env): Promise<Services> {
  return lambdaContext(env).then(allServices);
}
