import { z } from "zod";
import { DomainError } from "./errors";

/**
 * The kill switch (docs/security.md "Kill switch"): one per user (halts that user's trading) and
 * one for the stage (an administrator's: halts everyone's). While either is tripped, no order is
 * placed or replaced for the user: every order-placing path asks `KillSwitchGuard.check` first and
 * answers 409 `KILL_SWITCH_ACTIVE` naming the switch. The state is in the table; each process keeps
 * the tripped switches in memory and reads them again at most every `KILL_SWITCH_RECHECK_MS`.
 */

/** How often a process reads the tripped switches again (wall ms): a trip on another instance holds here within this. */
export const KILL_SWITCH_RECHECK_MS = 2_000;

/** Orders a switch keeps in its state (those it asked to cancel, newest trip's first). */
export const KILL_SWITCH_MAX_ORDERS = 200;

export const KillSwitchScope = z.enum(["user", "stage"]).describe("user: the caller's own sessions; stage: every user's (administrators only)");
export type KillSwitchScope = z.infer<typeof KillSwitchScope>;

/** A tripped switch as every process keeps it: which, who tripped it, when and why. */
export const KillSwitchTrip = z
  .object({
    scope: KillSwitchScope,
    user_id: z.string().nullable().describe("The user whose trading it halts; null for the stage's switch"),
    tripped_at: z.string().describe("When it was tripped (UTC)"),
    tripped_by: z.string().describe("Who tripped it: a user id, or `risk:<session id>` for a session's max_daily_loss breach"),
    key_id: z.string().nullable().describe("The API key it was tripped with; null for a sign-in token or the risk monitor"),
    reason: z.string(),
  })
  .meta({ id: "KillSwitchTrip" });
export type KillSwitchTrip = z.infer<typeof KillSwitchTrip>;

/**
 * The simulated venue's orders outside any session (an owner's own, on their simulated account
 * with no session's sleeve): a trip withdraws them there at once (no worker drives them).
 */
export interface OutsideOrderDesk {
  /** Withdraws the working orders outside any session of `userIds`' accounts (every user's when null); the orders, as the switch lists them. */
  withdraw(userIds: readonly string[] | null): Promise<KillSwitchOrder[]>;
}

/** An order the switch asked to cancel, and what became of it. */
export const KillSwitchOrder = z
  .object({
    session_id: z
      .string()
      .nullable()
      .describe(
        "The session whose order it is; null: an order on the simulated venue outside any session (`POST /trading/simulation/orders`), withdrawn from its owner's account at once",
      ),
    account_id: z.string().optional().describe("The simulated account of an order outside any session (its owner's); absent for a session's order"),
    order_id: z.string(),
    symbol: z.string(),
    side: z.string(),
    status: z.string().describe("The order's status now: cancelled once its venue has ended it; pending while the cancel is on its way"),
    cancel_requested: z.boolean().describe("Asked of the venue and not yet confirmed"),
    cancel_failed: z
      .object({ error: z.string(), attempts: z.number().int(), at: z.string() })
      .nullable()
      .describe("Set when the venue kept refusing or failing the cancel (the session worker still retries, at most every 30 s)"),
  })
  .meta({ id: "KillSwitchOrder" });
export type KillSwitchOrder = z.infer<typeof KillSwitchOrder>;

/** One switch as stored and answered. */
export const KillSwitchState = z
  .object({
    scope: KillSwitchScope,
    user_id: z.string().nullable(),
    active: z.boolean().describe("Tripped: new orders are refused with 409 KILL_SWITCH_ACTIVE"),
    trip: KillSwitchTrip.nullable().describe("The current trip, or the last one once released; null: never tripped"),
    released_at: z.string().nullable(),
    released_by: z.string().nullable(),
    sessions_paused: z.array(z.string()).describe("The sessions the trip paused"),
    orders: z.array(KillSwitchOrder).describe("The orders the trip asked to cancel"),
  })
  .meta({ id: "KillSwitchState" });
export type KillSwitchState = z.infer<typeof KillSwitchState>;

/** GET /api/v1/kill-switch: the caller's switch, the stage's, and whether either halts the caller. */
export const KillSwitchStatus = z
  .object({
    active: z.boolean().describe("Whether the caller's orders are refused now (their own switch or the stage's)"),
    user: KillSwitchState,
    stage: KillSwitchState,
  })
  .meta({ id: "KillSwitchStatus" });
export type KillSwitchStatus = z.infer<typeof KillSwitchStatus>;

export const KillSwitchTripRequest = z
  .object({
    scope: KillSwitchScope.default("user"),
    reason: z.string().trim().min(1).max(500).optional().describe("Why (shown with the switch and in the 409 of every refused order)"),
  })
  .meta({ id: "KillSwitchTripRequest" });
export type KillSwitchTripRequest = z.infer<typeof KillSwitchTripRequest>;

export const KillSwitchReleaseRequest = z.object({ scope: KillSwitchScope.default("user") }).meta({ id: "KillSwitchReleaseRequest" });

/** The 409 a route answers while a kill switch halts the caller (for route descriptions). */
export const KILL_SWITCH_CONFLICT =
  "KILL_SWITCH_ACTIVE: the owner's or the stage's kill switch is tripped (`kill_switch` names it: scope, who, when, why; POST /api/v1/kill-switch/release)";

/** What a session's status shows of the switch that halts it (null: none). */
export const KillSwitchFlag = KillSwitchTrip.nullable().describe(
  "The kill switch halting this session's owner (theirs or the stage's); null when none is tripped",
);

/** The item of a switch: `USER#<id>` or `STAGE`. */
export const switchName = (scope: KillSwitchScope, userId: string | null): string => (scope === "stage" ? "STAGE" : `USER#${userId}`);

/** Storage port of the switches. */
export interface KillSwitchStore {
  get(scope: KillSwitchScope, userId: string | null): Promise<KillSwitchState | undefined>;
  /** The switches tripped now (one small query, whatever the number of users). */
  tripped(): Promise<KillSwitchTrip[]>;
  /** Writes the switch's state; its entry among the tripped ones follows `state.active`. */
  save(state: KillSwitchState): Promise<void>;
  /** Records a cancel the venue keeps failing on the switch's order (added when the trip did not list it). */
  cancelFailed(scope: KillSwitchScope, userId: string | null, order: KillSwitchOrder): Promise<void>;
}

/** 409 `KILL_SWITCH_ACTIVE`, naming the switch: which, who tripped it, when and why. */
export function killSwitchActive(trip: KillSwitchTrip): DomainError {
  const which = trip.scope === "stage" ? "The stage's kill switch" : "Your kill switch";
  return new DomainError(
    409,
    "KILL_SWITCH_ACTIVE",
    `${which} is tripped (by ${trip.tripped_by} at ${trip.tripped_at}: ${trip.reason}): no order is placed until it is released (POST /api/v1/kill-switch/release)`,
    { kill_switch: trip },
  );
}

/**
 * The tripped switches as this process knows them: read from the table at most every `recheckMs`
 * (the requests arriving during a read share it), changed at once by a trip or a release made here.
 */
export class KillSwitchGuard {
  private trips: KillSwitchTrip[] = [];
  private checkedAt = Number.NEGATIVE_INFINITY;
  private reading?: Promise<void>;

  constructor(
    private readonly store: Pick<KillSwitchStore, "tripped">,
    private readonly now: () => number,
    private readonly recheckMs = KILL_SWITCH_RECHECK_MS,
  ) {}

  /** Every tripped switch. */
  async tripped(): Promise<readonly KillSwitchTrip[]> {
    if (this.now() - this.checkedAt >= this.recheckMs) {
      this.reading ??= (async () => {
        const at = this.now();
        try {
          this.trips = await this.store.tripped();
          this.checkedAt = at;
        } finally {
          this.reading = undefined;
        }
      })();
      await this.reading;
    }
    return this.trips;
  }

  /** The switch halting `userId` (the stage's first), if one is tripped. */
  async halting(userId: string): Promise<KillSwitchTrip | null> {
    const trips = await this.tripped();
    return trips.find((trip) => trip.scope === "stage") ?? trips.find((trip) => trip.user_id === userId) ?? null;
  }

  /** Refuses an order of `userId` while a switch halts them: 409 `KILL_SWITCH_ACTIVE`. */
  async check(userId: string): Promise<void> {
    const trip = await this.halting(userId);
    if (trip) throw killSwitchActive(trip);
  }

  /** A trip (or release, `trip` null) made by this process holds here at once. */
  noteLocally(scope: KillSwitchScope, userId: string | null, trip: KillSwitchTrip | null): void {
    this.trips = [...this.trips.filter((known) => !(known.scope === scope && known.user_id === userId)), ...(trip ? [trip] : [])];
  }
}
