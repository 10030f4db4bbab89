import { connect } from "node:net";
import { configIssues, type BrokerConfig, type BrokerConnector, type BrokerType, type TestResponse } from "@tp/core/brokers/index";
import { errorText, loadLongport, longportConfig, withTimeout } from "./longport";

const elapsed = (started: number) => Math.round(performance.now() - started);

/**
 * Tests broker connections for real: LongPort by opening a QuoteContext with the broker's
 * credentials, Futu by reaching its OpenD gateway over TCP, paper and simulated brokers by
 * checking their configuration. Every failure is an answer, never an exception.
 */
export class BrokerConnectionTester implements BrokerConnector {
  constructor(private readonly timeoutMs: number) {}

  async test(type: BrokerType, config: BrokerConfig): Promise<TestResponse> {
    const started = performance.now();
    try {
      const message = await this.attempt(type, config);
      return { success: true, message, response_time: elapsed(started) };
    } catch (error) {
      return { success: false, message: errorText(error), response_time: elapsed(started) };
    }
  }

  private async attempt(type: BrokerType, config: BrokerConfig): Promise<string> {
    const problems = configIssues(type, config, ["config"]);
    if (problems.length) throw new Error(`Configuration is incomplete: ${problems.map((p) => `${p.loc.join(".")} ${p.msg}`).join("; ")}`);
    switch (type) {
      case "longport":
        return this.longport(config);
      case "futu":
        return this.tcp(config.host!, config.port!);
      case "paper":
      case "simulated": {
        const cash = config.initial_cash ? ` with initial cash ${config.initial_cash} ${config.currency ?? "USD"}` : "";
        return `The ${type} broker's configuration is valid${cash}; it trades against the service's own market`;
      }
    }
  }

  private async longport(config: BrokerConfig): Promise<string> {
    const { QuoteContext } = await loadLongport();
    try {
      const context = await withTimeout(QuoteContext.new(await longportConfig(config)), this.timeoutMs, "LongPort");
      return `Connected to LongPort quote service (member ${context.memberId()}, quote level ${context.quoteLevel() || "none"})`;
    } catch (error) {
      throw new Error(`LongPort connection failed: ${errorText(error)}`);
    }
  }

  private tcp(host: string, port: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port });
      const fail = (error: Error) => {
        socket.destroy();
        reject(new Error(`Futu OpenD gateway at ${host}:${port} is not reachable: ${error.message}`));
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
