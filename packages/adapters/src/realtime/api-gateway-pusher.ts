import { ApiGatewayManagementApiClient, GoneException, PostToConnectionCommand } from "@aws-sdk/client-apigatewaymanagementapi";
import type { ConnectionPusher } from "@tp/core/realtime";
import { awsClient } from "../aws-clients";

/**
 * Posts through the API Gateway management API. The embedded runtime serves the same
 * `@connections` API on loopback, so this one adapter pushes in both runtimes.
 */
export class ApiGatewayPusher implements ConnectionPusher {
  private client?: ApiGatewayManagementApiClient;
  constructor(private readonly endpoint: () => string | undefined) {}

  async post(connectionId: string, data: string): Promise<"sent" | "gone"> {
    const endpoint = this.endpoint();
    if (!endpoint) throw new Error("No WebSocket management endpoint is configured (WS_MANAGEMENT_ENDPOINT)");
    this.client ??= awsClient(
      new ApiGatewayManagementApiClient({
        endpoint,
        ...(endpoint.startsWith("http://127.0.0.1") || endpoint.startsWith("http://localhost")
          ? { region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } }
          : {}),
      }),
    );
    try {
      await this.client.send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: new TextEncoder().encode(data) }));
      return "sent";
    } catch (error) {
      if (error instanceof GoneException || (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 410) {
        return "gone";
      }
      throw error;
    }
  }
}
