/**
 * The builders of users and their access: the user store, sign-in (`auth`), the principals' cache
 * (tokens and API keys resolved, revocations), users' API keys, the audit trail of commands, and
 * the flows users save (the flow editor's documents).
 */
import type { AuthDeps } from "@tp/core/auth";
import type { FlowLibraryDeps } from "@tp/core/flows/flow-library";
import type { UserStore, UsersDeps } from "@tp/core/users";
import { PrincipalCache } from "../principal-cache";
import { DynamoApiKeyStore, DynamoCaptchaStore, DynamoKeyRateStore, DynamoLoginAttemptStore, DynamoRevocationStore } from "../stores/auth-stores";
import { DynamoAuditStore } from "../stores/audit-store";
import type { ApiKeyDeps } from "@tp/core/api-keys";
import { AUDIT_RETENTION_DAYS, type AuditDeps } from "@tp/core/audit";
import { DynamoUserStore } from "../stores/user-store";
import { DynamoFlowStore } from "../stores/flow-store";
import { type ServiceContext, once } from "./context";

export function userStore(c: ServiceContext): UserStore {
  return once(c, userStore, () => new DynamoUserStore(c.db));
}

function revocations(c: ServiceContext): DynamoRevocationStore {
  return once(c, revocations, () => new DynamoRevocationStore(c.db));
}

function apiKeyStore(c: ServiceContext): DynamoApiKeyStore {
  return once(c, apiKeyStore, () => new DynamoApiKeyStore(c.db));
}

export function principals(c: ServiceContext): PrincipalCache {
  return once(
    c,
    principals,
    () => new PrincipalCache(c.config.auth, revocations(c), c.now, c.config.principalRecheckMs, undefined, apiKeyStore(c), new DynamoKeyRateStore(c.db)),
  );
}

export function apiKeys(c: ServiceContext): ApiKeyDeps {
  return once(c, apiKeys, () => ({ keys: apiKeyStore(c), now: c.now }));
}

export function audit(c: ServiceContext): AuditDeps {
  return once(c, audit, () => ({ store: new DynamoAuditStore(c.db), now: c.now, retentionDays: c.config.auditRetentionDays ?? AUDIT_RETENTION_DAYS }));
}

export function auth(c: ServiceContext): AuthDeps {
  return once(c, auth, () => ({
    config: c.config.auth,
    users: userStore(c),
    captchas: new DynamoCaptchaStore(c.db),
    attempts: new DynamoLoginAttemptStore(c.db, c.now),
    revocations: revocations(c),
    now: c.now,
  }));
}

export function users(c: ServiceContext): UsersDeps {
  return once(c, users, () => ({ users: userStore(c), now: c.now, newId: c.newId, onUserChanged: (userId: string) => principals(c).invalidateUser(userId) }));
}

export function flows(c: ServiceContext): FlowLibraryDeps {
  return once(c, flows, () => ({ flows: new DynamoFlowStore(c.db), now: c.now, newId: c.newId }));
}
