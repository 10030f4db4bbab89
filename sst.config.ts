import type { SSTConfig } from "sst";
import { Api } from "./stacks/Api";
import { Queues } from "./stacks/Queues";
import { Realtime } from "./stacks/Realtime";
import { Storage } from "./stacks/Storage";
import { Workflows } from "./stacks/Workflows";
import { DataSync } from "./stacks/DataSync";
import { NODEJS } from "./stacks/functions";
import { Alarms } from "./stacks/Alarms";
import { Monitoring } from "./stacks/Monitoring";
import { Worker } from "./stacks/Worker";
import { Console } from "./stacks/Console";

export default {
  config() {
    return { name: "trading-platform", region: process.env.AWS_REGION ?? "us-east-1" };
  },
  stacks(app) {
    app.setDefaultFunctionProps({
      runtime: "nodejs22.x",
      architecture: "arm_64",
      memorySize: 1024,
      timeout: 29,
      tracing: "active",
      logRetention: "one_month",
      nodejs: NODEJS,
      environment: { STAGE: app.stage, POWERTOOLS_SERVICE_NAME: "trading-platform", POWERTOOLS_METRICS_NAMESPACE: "TradingPlatform" },
    });
    if (app.stage !== "prod") app.setDefaultRemovalPolicy("destroy");
    app.stack(Storage).stack(Alarms).stack(Queues).stack(Workflows).stack(Realtime).stack(DataSync).stack(Worker).stack(Api).stack(Console).stack(Monitoring);
  },
} satisfies SSTConfig;
