import { connect } from "node:net";
import { configIssues, type BrokerConfig, type BrokerConnector, type BrokerType, type TestResponse } from "@tp/core/brokers/index";
import { EgressRefused, type EgressPolicy } from "../net/egress";
import type { LongportHosts } from "../config";
import { errorText, loadLongport, longportConfig, withTimeout } from "../provider/longport/sdk";
import { log } from "@tp/core/log";

/** LongPort's own domains: custom endpoint URLs must point there unless an administrator allowed the host. */
const LONGPORT_DOMAINS = [".longportapp.com", ".longportapp.cn", ".longbridgeapp.com", ".longbridge.cn"];
const isLongportHost = (host: string) => LONGPORT_DOMAINS.some((domain) => host === domain.slice(1) || host.endsWith(domain));

const elapsed = (started: number) => Math.round(performance.now() - started);

/**
 * Tests broker connections for real: LongPort by opening a QuoteContext with the broker's
 * credentials, Futu by reaching its OpenD gateway over TCP, paper and simulated brokers by
 * checking their configuration. Every failure is an answer, never an exception.
 */
export class BrokerConnectionTester implements BrokerConnector {
  constructor(
    private readonly timeoutMs: number,
    private readonly egress: EgressPolicy,
    /** The service's LongPort hosts (`LONGPORT_*_URL`), where a broker names none. */
    private readonly longportHosts: LongportHosts = {},
  ) {}

  async test(type: BrokerType, config: BrokerConfig): Promise<TestResponse> {
    const started = performance.now();
    try {
      const message = await this.attempt(type, config);
      return { success: true, message, response_time: elapsed(started) };
    } catch (error) {
      return { success: false, message: error instanceof EgressRefused ? error.message : errorText(error), response_time: elapsed(started) };
    }
  }

  private async attempt(type: BrokerType, config: BrokerConfig): Promise<string> {
    const problems = configIssues(type, config, ["config"]);
    if (problems.length) throw new Error(`Configuration is incomplete: ${problems.map((p) => `${p.loc.join(".")} ${p.msg}`).join("; ")}`);
    switch (type) {
      case "longport":
        return this.longport(config);
      case "futu":
        return this.tcp(config.host!, await this.egress.pin(config.host!), config.port!);
      case "paper":
      case "simulated": {
        const cash = config.initial_cash ? ` with initial cash ${config.initial_cash} ${config.currency ?? "USD"}` : "";
        return `The ${type} broker's configuration is valid${cash}; it trades against the service's own market`;
      }
    }
  }

  /**
   * The SDK resolves and connects by itself, so its address cannot be pinned: custom endpoint URLs
   * must be https/wss on LongPort's own domains, or on a host an administrator allowed.
   */
  private async checkLongportUrls(config: BrokerConfig): Promise<void> {
    for (const [field, url, scheme] of [
      ["http_url", config.http_url, "https:"],
      ["quote_ws_url", config.quote_ws_url, "wss:"],
      ["trade_ws_url", config.trade_ws_url, "wss:"],
    ] as const) {
      if (!url) continue;
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        throw new EgressRefused(field, "not a URL");
      }
      const host = parsed.hostname.toLowerCase();
      if (await this.egress.allows(host)) continue;
      if (parsed.protocol !== scheme || !isLongportHost(host))
        throw new EgressRefused(host, `${field} must be a ${scheme.slice(0, -1)} URL on LongPort's own domains`);
    }
  }

  private async longport(config: BrokerConfig): Promise<string> {
    await this.checkLongportUrls(config);
    const { QuoteContext } = await loadLongport();
    try {
      const context = await withTimeout(QuoteContext.new(await longportConfig(config, this.longportHosts)), this.timeoutMs, "LongPort");
      return `Connected to LongPort quote service (member ${context.memberId()}, quote level ${context.quoteLevel() || "none"})`;
    } catch (error) {
      throw new Error(`LongPort connection failed: ${errorText(error)}`);
    }
  }

  /**
   * Opens a TCP connection to the checked `address` of `host`. A failure says only that it failed:
   * refused, reset and timed out read the same, so the answer cannot map someone's network.
   */
  private tcp(host: string, address: string, port: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: address, port });
      const fail = (error: Error) => {
        socket.destroy();
        log.info("Futu connection test failed", { host, port, error: error.message });
        reject(new Error(`Futu OpenD gateway at ${host}:${port} did not accept a connection within ${this.timeoutMs} ms`));
      };
      socket.setTimeout(this.timeoutMs, () => fail(new Error(`no answer within ${this.timeoutMs} ms`)));
      socket.once("error", fail);
      socket.once("connect", () => {
        socket.end();
        resolve(`Futu OpenD gateway at ${host}:${port} accepts connections (the trading protocol is not used by this service yet)`);
      });
    });
  }
}
