import { conflict, DomainError, notFound } from "../errors";
import { LAST_WRITER_WINS, retrying } from "../util/backoff";
import type { Actor } from "../users";
import type { FlowConfig, FlowConfigCreate, FlowConfigUpdate } from "./flow-config";
import { duplicate, validate, type FlowValidation } from "./flows";

/**
 * A flow as stored: the interface's FlowConfig with its bookkeeping fields always present,
 * plus the owner. `user_id` never leaves the service (flows are private to their owner).
 */
export interface StoredFlow extends FlowConfig {
  user_id: string;
  version: number;
  created_at: string;
  updated_at: string;
}

/** Storage port for flows. */
export interface FlowStore {
  /** Writes a new flow; its id must not exist yet. */
  create(flow: StoredFlow): Promise<void>;
  get(id: string): Promise<StoredFlow | undefined>;
  /** Every flow of a user, newest first. */
  listByUser(userId: string): Promise<StoredFlow[]>;
  /** Replaces the flow if its stored version is still `expectedVersion`; otherwise throws `flowChanged`. */
  update(flow: StoredFlow, expectedVersion: number): Promise<void>;
  delete(id: string): Promise<void>;
}

/** A concurrent update (or delete) got there first: the client must read the flow again. */
export const flowChanged = (id: string) => conflict("FLOW_CHANGED", `Flow ${id} was changed by another request; read it again and retry`);

export interface FlowLibraryDeps {
  flows: FlowStore;
  now: () => number;
  newId: () => string;
}

/**
 * Largest flow, as JSON, that the service keeps. A flow is stored as one DynamoDB item
 * (400 KB at most, attribute names included); the margin covers the key attributes and the
 * difference between JSON and DynamoDB's encoding.
 */
export const MAX_FLOW_BYTES = 300 * 1024;

const flowNotFound = (id: string) => notFound("FLOW_NOT_FOUND", `Flow ${id} does not exist`);

const timestamp = (deps: FlowLibraryDeps) => new Date(deps.now()).toISOString();

function requireStorable(flow: StoredFlow): StoredFlow {
  const bytes = new TextEncoder().encode(JSON.stringify(flow)).length;
  if (bytes > MAX_FLOW_BYTES) {
    throw new DomainError(413, "FLOW_TOO_LARGE", `The flow takes ${bytes} bytes as JSON; at most ${MAX_FLOW_BYTES} are stored`, {
      size_bytes: bytes,
      max_bytes: MAX_FLOW_BYTES,
    });
  }
  return flow;
}

async function insert(deps: FlowLibraryDeps, actor: Actor, input: FlowConfigCreate): Promise<StoredFlow> {
  const now = timestamp(deps);
  const flow = requireStorable({
    id: deps.newId(),
    user_id: actor.id,
    name: input.name,
    description: input.description ?? null,
    nodes: input.nodes,
    edges: input.edges,
    ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
    version: 1,
    created_at: now,
    updated_at: now,
  });
  await deps.flows.create(flow);
  return flow;
}

/**
 * Flows saved by the editor. A flow belongs to the user who created it and only they see it:
 * to anyone else, administrators included, it does not exist (404 `FLOW_NOT_FOUND`), so ids
 * reveal nothing. Saving checks shape only; `validate` says whether the graph can run.
 */
export const FlowLibrary = {
  /** The interface's FlowConfig: the stored flow without its owner. */
  toResponse(flow: StoredFlow): FlowConfig {
    return {
      id: flow.id,
      name: flow.name,
      description: flow.description ?? null,
      nodes: flow.nodes,
      edges: flow.edges,
      ...(flow.metadata !== undefined ? { metadata: flow.metadata } : {}),
      version: flow.version,
      created_at: flow.created_at,
      updated_at: flow.updated_at,
    };
  },

  /** Saves a new flow of the caller at version 1. */
  create(deps: FlowLibraryDeps, actor: Actor, input: FlowConfigCreate): Promise<StoredFlow> {
    return insert(deps, actor, input);
  },

  /** The caller's flows, newest first. */
  list(deps: FlowLibraryDeps, actor: Actor): Promise<StoredFlow[]> {
    return deps.flows.listByUser(actor.id);
  },

  async get(deps: FlowLibraryDeps, actor: Actor, id: string): Promise<StoredFlow> {
    const flow = await deps.flows.get(id);
    if (!flow || flow.user_id !== actor.id) throw flowNotFound(id);
    return flow;
  },

  /**
   * Applies a partial update and raises the version by one, written conditionally on the version
   * read. With `ifMatch` (the version a PUT's `If-Match` named) a concurrent writer that got there
   * first makes it 409 `FLOW_CHANGED`; without it the last writer wins (a lost race reads again
   * and reapplies).
   */
  async update(deps: FlowLibraryDeps, actor: Actor, id: string, input: FlowConfigUpdate, ifMatch?: number): Promise<StoredFlow> {
    const attempt = async () => {
      const before = await FlowLibrary.get(deps, actor, id);
      if (ifMatch !== undefined && before.version !== ifMatch) throw flowChanged(id);
      const metadata = input.metadata ?? before.metadata;
      const after = requireStorable({
        id: before.id,
        user_id: before.user_id,
        name: input.name ?? before.name,
        // null clears the description; leaving it out keeps it.
        description: input.description === undefined ? (before.description ?? null) : input.description,
        nodes: input.nodes ?? before.nodes,
        edges: input.edges ?? before.edges,
        ...(metadata !== undefined ? { metadata } : {}),
        version: before.version + 1,
        created_at: before.created_at,
        updated_at: timestamp(deps),
      });
      await deps.flows.update(after, before.version);
      return after;
    };
    return ifMatch !== undefined ? attempt() : retrying(attempt, LAST_WRITER_WINS);
  },

  async delete(deps: FlowLibraryDeps, actor: Actor, id: string): Promise<StoredFlow> {
    const flow = await FlowLibrary.get(deps, actor, id);
    await deps.flows.delete(flow.id);
    return flow;
  },

  /** A copy under a new id at version 1, named "X (copy)" (or the next free "X (copy n)" among the caller's flows). */
  async duplicate(deps: FlowLibraryDeps, actor: Actor, id: string): Promise<StoredFlow> {
    const original = await FlowLibrary.get(deps, actor, id);
    const taken = (await deps.flows.listByUser(actor.id)).map((flow) => flow.name);
    return insert(deps, actor, duplicate(original, taken));
  },

  /** Whether the stored flow can run (see `Flows.validate`). */
  async validate(deps: FlowLibraryDeps, actor: Actor, id: string): Promise<FlowValidation> {
    return validate(await FlowLibrary.get(deps, actor, id));
  },
};
