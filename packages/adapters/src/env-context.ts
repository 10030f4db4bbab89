import { hkdfSync } from "node:crypto";
import { GetSecretValueCommand, SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { configFromEnv } from "./config";
import { serviceContext, type ServiceContext, type ServiceOverrides } from "./compose/context";

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
 * The context of a deployed runtime (the Lambda functions', the Fargate session worker's):
 * configuration from the environment, keys from Secrets Manager (or, outside AWS, from the
 * variables themselves).
 */
export async function contextFromEnv(env: NodeJS.ProcessEnv, overrides: ServiceOverrides = {}): Promise<ServiceContext> {
  const jwtSecret = await secretBytes(env, "JWT_SECRET");
  // The credential key is its own secret on AWS; 32 bytes are derived from its random text.
  const encryptionKey = env.ENCRYPTION_KEY_ARN
    ? new Uint8Array(hkdfSync("sha256", await secretBytes(env, "ENCRYPTION_KEY"), new Uint8Array(0), "broker-config-encryption", 32))
    : undefined;
  // Non-production stages may carry a captcha test code (for smoke tests) in its own secret.
  const captcha = env.CAPTCHA_TEST_CODE_ARN ? { CAPTCHA_TEST_CODE: new TextDecoder().decode(await secretBytes(env, "CAPTCHA_TEST_CODE")) } : {};
  return serviceContext(configFromEnv({ ...env, ...captcha }, jwtSecret, encryptionKey), overrides);
}
