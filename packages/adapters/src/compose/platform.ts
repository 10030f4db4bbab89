/**
 * The builders of the platform's plumbing: the read-through cache, the job queue (SQS or the
 * table-backed queue), the workflow starter (Step Functions, the runtime's own runner, or a 503),
 * the realtime socket's connections and pushes, and the database ping of the health endpoint.
 */
import type { JobQueue } from "@tp/core/jobs";
import type { RealtimeDeps } from "@tp/core/realtime";
import type { Actor } from "@tp/core/users";
import { ReadThroughCache } from "../cache";
import { DynamoConnectionStore } from "../stores/connection-store";
import { ApiGatewayPusher } from "../realtime/api-gateway-pusher";
import { SqsJobQueue } from "../queues/sqs-queue";
import { SfnWorkflowStarter } from "../workflows/sfn-starter";
import { TableQueue } from "../queues/table-queue";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";
import { serviceUnavailable } from "@tp/core/errors";
import type { WorkflowStarter } from "@tp/core/workflows";
import { DynamoRunStore } from "../stores/run-store";
import { DynamoSessionStore } from "../stores/session-store";
import { owned as ownedSession } from "@tp/core/trading/session/sessions";
import { type ServiceContext, once } from "./context";
import { principals } from "./users";

export function cache(c: ServiceContext): ReadThroughCache {
  return once(c, cache, () => new ReadThroughCache(c.db, c.now));
}

export function jobs(c: ServiceContext): JobQueue {
  return once(c, jobs, () => (Object.keys(c.config.queueUrls).length > 0 ? new SqsJobQueue(c.config.queueUrls) : new TableQueue(c.db, c.now)));
}

/** Without a configured workflow runner, starting a workflow is a 503 rather than a silent no-op. */
const noWorkflows: WorkflowStarter = {
  async start() {
    throw serviceUnavailable("No workflow runner is configured for this instance", 30);
  },
};

export function workflows(c: ServiceContext): WorkflowStarter {
  return once(c, workflows, () =>
    Object.keys(c.config.stateMachineArns).length > 0 ? new SfnWorkflowStarter(c.config.stateMachineArns) : (c.overrides.workflows ?? noWorkflows),
  );
}

export function realtime(c: ServiceContext): RealtimeDeps {
  return once(c, realtime, () => {
    const sessions = new DynamoSessionStore(c.db, new DynamoRunStore(c.db));
    return {
      connections: new DynamoConnectionStore(c.db),
      pusher: new ApiGatewayPusher(() => c.config.websocketManagementEndpoint),
      now: c.now,
      marketNow: c.marketNow,
      authenticate: async (token: string) => {
        const { user, key } = await principals(c).resolve(token);
        return { actor: user, ...(key ? { key } : {}) };
      },
      // Someone else's session or one outside a key's sessions: 403; an unknown one: 404 (the same rules as the session endpoints).
      authorizeSession: (actor: Actor, sessionId: string) => ownedSession({ sessions, now: c.now, newId: c.newId }, actor, sessionId).then(() => undefined),
    };
  });
}

export function pingDatabase(c: ServiceContext): () => Promise<number> {
  return once(c, pingDatabase, () => {
    const probe = new Repository<object>(c.db, { type: "HealthProbe", key: () => Keys.healthProbe() });
    return async () => {
      const started = performance.now();
      await probe.get(Keys.healthProbe(), { consistent: false });
      return performance.now() - started;
    };
  });
}
