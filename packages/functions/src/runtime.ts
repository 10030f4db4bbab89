import { hkdfSync } from "node:crypto";
import { GetSecretValueCommand, SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { configFromEnv } from "@tp/adapters/config";
import { allServices, serviceContext, type ServiceContext, type Services } from "@tp/adapters/services";

let context: Promise<ServiceContext> | undefined;

async function secretBytes(env: NodeJS.ProcessEnv, name: string): Promise<Uint8Array> {
  const arn = env[`${name}_ARN`];
  if (arn) {
    const client = new SecretsManagerClient({});
    const secret = await client.send(new GetSecretValueCommand({ SecretId: arn }));
    if (!secret.SecretString) throw new Error(`Secret ${arn} has no string value`);
    return new TextEncoder().encode(secret.SecretString);
  }
  const value = env[name];
  if (!value) throw new Error(`Configure ${name}_ARN (Secrets Manager) or ${name}`);
  return new TextEncoder().encode(value);
}

/**
 * The Lambda composition root's context: configuration from the environment, keys from Secrets
 * Manager, built once per container and shared by every invocation (and every service built on it).
 */
export function lambdaContext(env: NodeJS.ProcessEnv = process.env): Promise<ServiceContext> {
  context ??= (async () => {
    const jwtSecret = await secretBytes(env, "JWT_SECRET");
    // The credential key is its own secret on AWS; 32 bytes are derived from its random text.
    const encryptionKey = env.ENCRYPTION_KEY_ARN
      ? new Uint8Array(hkdfSync("sha256", await secretBytes(env, "ENCRYPTION_KEY"), new Uint8Array(0), "broker-config-encryption", 32))
      : undefined;
    // Non-production stages may carry a captcha test code (for smoke tests) in its own secret.
    const captcha = env.CAPTCHA_TEST_CODE_ARN ? { CAPTCHA_TEST_CODE: new TextDecoder().decode(await secretBytes(env, "CAPTCHA_TEST_CODE")) } : {};
    return serviceContext(configFromEnv({ ...env, ...captcha }, jwtSecret, encryptionKey));
  })();
  context.catch(() => (context = undefined));
  return context;
}

/**
 * What one function's handler uses, composed on the Lambda context: `compose` names the
 * services (the builders of `@tp/adapters/services`), so the function builds, and bundles,
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

/** Every service on the Lambda context (the session worker's composition root; a function composes only its own). */
export function lambdaServices(env: NodeJS.ProcessEnv = process.env): Promise<Services> {
  return lambdaContext(env).then(allServices);
}
