import { describe, expect, it } from "vitest";
import { Template } from "aws-cdk-lib/assertions";
import { initProject } from "sst/project.js";
import { App, getStack } from "sst/constructs";
import config from "../../sst.config";
import { Storage } from "../../stacks/Storage";
import { Queues } from "../../stacks/Queues";

/** A production stage: it refuses to synthesise without CORS origins, and keeps its data. */
async function synth(stage: string) {
  await initProject({ stage });
  const app = new App({ mode: "deploy", stage, name: "trading-platform", region: "us-east-1" });
  config.stacks(app);
  return app;
}

describe("a production stage", () => {
  it("refuses to synthesise without CORS_ORIGINS", async () => {
    delete process.env.CORS_ORIGINS;
    await expect(synth("prod")).rejects.toThrow(/set CORS_ORIGINS/);
  }, 300_000);

  it("retains the table, secrets and queues, and protects the table from deletion", async () => {
    process.env.CORS_ORIGINS = "https://app.example.com";
    try {
      await synth("prod");
      const storage = Template.fromStack(getStack(Storage));
      storage.hasResource("AWS::DynamoDB::Table", { DeletionPolicy: "Retain", Properties: { DeletionProtectionEnabled: true } });
      const secrets = Object.values(storage.findResources("AWS::SecretsManager::Secret"));
      // No captcha test code on a production stage.
      expect(secrets).toHaveLength(2);
      for (const secret of secrets) expect(secret.DeletionPolicy).toBe("Retain");
      const queues = Object.values(Template.fromStack(getStack(Queues)).findResources("AWS::SQS::Queue"));
      expect(queues.length).toBe(8); // three job queues (imports, data sync, webhook deliveries), the session commands, and each one's dead letters;
      for (const queue of queues) expect(queue.DeletionPolicy).toBe("Retain");
    } finally {
      delete process.env.CORS_ORIGINS;
    }
  }, 300_000);
});
