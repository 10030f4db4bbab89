import { describe, expect, it } from "vitest";
import { DomainError } from "@tp/core/errors";
import { ManualClock } from "@tp/core/provider/clock";
import type { OrderGateway } from "@tp/core/provider/order-gateway";
import type { ProviderSelection } from "@tp/core/settings/index";
import { LongportMarketData, LongportOrderGateway } from "./longport/index";
import { ProviderRegistry } from "./registry";
import { SimulatedMarketData } from "./simulated/index";

const simulatedSelection = (version = 0, overnight = false): ProviderSelection => ({
  type: "simulated",
  version,
  language: "en",
  enable_overnight: overnight,
  credentials: null,
});
const longportSelection = (version: number): ProviderSelection => ({
  type: "longport",
  version,
  language: "en",
  enable_overnight: false,
  credentials: { app_key: "key", app_secret: "secret", access_token: "token" },
});

/** A registry over a selection the test changes, counting the settings reads. */
function registry(options: { paperGateway?: (accountId: string) => OrderGateway } = {}) {
  const clock = new ManualClock("2026-03-10T03:00:00Z");
  const state = { selection: simulatedSelection(), reads: 0 };
  const simulated = new SimulatedMarketData({ clock });
  const providers = new ProviderRegistry({
    select: async () => {
      state.reads += 1;
      return state.selection;
    },
    simulated,
    clock,
    now: () => clock.now(),
    ttlMs: 5000,
    timeoutMs: 1000,
    ...options,
  });
  return { providers, state, clock, simulated };
}

describe("ProviderRegistry", () => {
  it("reads the settings once per TTL and switches adapters when the selection changes", async () => {
    const { providers, state, clock, simulated } = registry();
    expect(await providers.marketData()).toBe(simulated);
    state.selection = longportSelection(1);
    clock.advance(4999);
    expect(await providers.marketData()).toBe(simulated);
    expect(state.reads).toBe(1);
    clock.advance(1);
    expect(await providers.marketData()).toBeInstanceOf(LongportMarketData);
    expect(state.reads).toBe(2);
    state.selection = simulatedSelection(2);
    providers.invalidate();
    expect(await providers.marketData()).toBe(simulated);
    expect(state.reads).toBe(3);
  });

  it("keeps the adapters while what they depend on is unchanged, and rebuilds LongPort on any new version", async () => {
    const { providers, state } = registry();
    const first = await providers.marketData();
    state.selection = simulatedSelection(7);
    providers.invalidate();
    expect(await providers.marketData()).toBe(first);
    state.selection = longportSelection(8);
    providers.invalidate();
    const longport = await providers.marketData();
    providers.invalidate();
    expect(await providers.marketData()).toBe(longport);
    state.selection = longportSelection(9);
    providers.invalidate();
    expect(await providers.marketData()).not.toBe(longport);
  });

  it("gives overnight its own simulated market on the same engine, and returns to the first one", async () => {
    const { providers, state, simulated } = registry();
    state.selection = simulatedSelection(1, true);
    const overnight = (await providers.marketData()) as SimulatedMarketData;
    expect(overnight).not.toBe(simulated);
    expect(overnight.overnight).toBe(true);
    expect(overnight.engine).toBe(simulated.engine);
    state.selection = simulatedSelection(2, false);
    providers.invalidate();
    expect(await providers.marketData()).toBe(simulated);
  });

  it("shares one settings read between concurrent callers", async () => {
    const { providers, state } = registry();
    await Promise.all([providers.marketData(), providers.marketData(), providers.active()]);
    expect(state.reads).toBe(1);
  });

  it("answers the order gateway of the selected provider, and 503 when no paper broker is wired", async () => {
    const accounts: string[] = [];
    const paper = {} as OrderGateway;
    const wired = registry({
      paperGateway: (accountId) => {
        accounts.push(accountId);
        return paper;
      },
    });
    expect(await wired.providers.orderGateway("user-1")).toBe(paper);
    expect(accounts).toEqual(["user-1"]);
    wired.state.selection = longportSelection(1);
    wired.providers.invalidate();
    const gateway = await wired.providers.orderGateway("user-1");
    expect(gateway).toBeInstanceOf(LongportOrderGateway);
    expect(await wired.providers.orderGateway("user-2")).toBe(gateway);

    const bare = registry();
    const error = await bare.providers.orderGateway("user-1").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ status: 503, code: "ORDER_GATEWAY_UNAVAILABLE" });
  });

  it("passes a failing settings read to the caller and reads again next time", async () => {
    const { providers, state } = registry();
    const failing = new ProviderRegistry({
      select: async () => {
        state.reads += 1;
        throw new DomainError(409, "PROVIDER_NOT_CONFIGURED", "no credentials");
      },
      simulated: new SimulatedMarketData({ clock: new ManualClock(0) }),
      clock: new ManualClock(0),
      now: () => 0,
      ttlMs: 5000,
      timeoutMs: 1000,
    });
    await expect(failing.marketData()).rejects.toMatchObject({ code: "PROVIDER_NOT_CONFIGURED" });
    await expect(failing.marketData()).rejects.toMatchObject({ code: "PROVIDER_NOT_CONFIGURED" });
    expect(state.reads).toBe(2);
    expect(await providers.marketData()).toBeInstanceOf(SimulatedMarketData);
  });
});
