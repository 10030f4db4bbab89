import { Fn } from "aws-cdk-lib";
import * as cloudfront from "aws-cdk-lib/aws-cloudfront";
import * as origins from "aws-cdk-lib/aws-cloudfront-origins";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import { WebSocketApi, use, type StackContext } from "sst/constructs";
import { Storage } from "./Storage";

/**
 * The WebSocket API ($connect, $disconnect, $default) and, in front of it, a CloudFront
 * distribution whose function turns the interface's paths (/api/v1/data-sync/logs,
 * /ws/trading/{id}, /ws/sessions/{id}/channels) into the `path` query parameter $connect reads.
 */
export function Realtime({ stack }: StackContext) {
  const { table, secrets } = use(Storage);
  const handler = "packages/functions/src/ws/socket";
  const api = new WebSocketApi(stack, "Realtime", {
    defaults: {
      function: {
        environment: { TABLE_NAME: table.tableName, ...secrets.environment },
        permissions: [table],
      },
    },
    // Stage throttling on the WebSocket API too (messages and connects per second).
    cdk: { webSocketStage: { throttle: { rateLimit: 200, burstLimit: 400 } } },
    routes: {
      $connect: `${handler}.connect`,
      $disconnect: `${handler}.disconnect`,
      $default: `${handler}.message`,
    },
  });
  const stage = api.cdk.webSocketStage;
  const managementEndpoint = stage.callbackUrl;
  // Pushes only: POST to the stage's @connections path (no DELETE or GET of someone's connection).
  const manageConnections = new PolicyStatement({
    actions: ["execute-api:ManageConnections"],
    resources: [stack.formatArn({ service: "execute-api", resource: api.cdk.webSocketApi.apiId, resourceName: `${stage.stageName}/POST/@connections/*` })],
  });
  for (const route of ["$connect", "$disconnect", "$default"]) {
    const fn = api.getFunction(route)!;
    fn.addEnvironment("WS_MANAGEMENT_ENDPOINT", managementEndpoint);
    secrets.grantRead(fn);
  }
  api.attachPermissions([manageConnections]);

  const rewrite = new cloudfront.Function(stack, "WebSocketPathRewrite", {
    runtime: cloudfront.FunctionRuntime.JS_2_0,
    code: cloudfront.FunctionCode.fromInline(
      [
        "function handler(event) {",
        "  var request = event.request;",
        "  request.querystring.path = { value: request.uri };",
        "  request.uri = '/';",
        "  return request;",
        "}",
      ].join("\n"),
    ),
  });
  const distribution = new cloudfront.Distribution(stack, "RealtimeDistribution", {
    comment: "WebSocket paths of the interface in front of the API Gateway WebSocket API",
    defaultBehavior: {
      origin: new origins.HttpOrigin(Fn.select(2, Fn.split("/", api.url)), { originPath: `/${stage.stageName}` }),
      allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
      // wss:// only: a plain ws:// (http) upgrade is refused rather than redirected.
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
      cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
      originRequestPolicy: new cloudfront.OriginRequestPolicy(stack, "WebSocketOriginRequest", {
        headerBehavior: cloudfront.OriginRequestHeaderBehavior.allowList(
          "Sec-WebSocket-Key",
          "Sec-WebSocket-Version",
          "Sec-WebSocket-Protocol",
          "Sec-WebSocket-Extensions",
        ),
        queryStringBehavior: cloudfront.OriginRequestQueryStringBehavior.all(),
      }),
      functionAssociations: [{ function: rewrite, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST }],
    },
  });

  const socketUrl = `wss://${distribution.distributionDomainName}`;
  stack.addOutputs({ WebSocketUrl: socketUrl, WebSocketApiUrl: api.url });
  const functions = ["$connect", "$disconnect", "$default"].map((route) => api.getFunction(route)!);
  return { managementEndpoint, manageConnections, functions, socketUrl };
}
