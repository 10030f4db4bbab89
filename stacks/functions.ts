import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Plugin } from "esbuild";
import type { FunctionProps } from "sst/constructs";
import { sweepMaxConcurrency } from "./stage";

/**
 * zod re-exports every locale (`z.locales`, `z.core.locales`: about 260 KB minified, most of a
 * small bundle) though only English is ever configured. In the functions' builds the locales'
 * index resolves to English alone; the embedded runtime and the tests load zod unchanged.
 */
export const zodEnglishOnly: Plugin = {
  name: "zod-english-only",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer) ? { path: args.importer, namespace: "zod-english-only" } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "zod-english-only" }, (args) => ({
      contents: 'export { default as en } from "../locales/en.js";',
      resolveDir: dirname(args.path),
      loader: "js",
    }));
  },
};

/**
 * zod's `z.fromJSONSchema` (building schemas from JSON Schema documents, about 12 KB minified) is
 * never called by the service; the `z` namespace keeps it in every bundle. In the functions'
 * builds it is a stub that says so.
 */
export const zodWithoutFromJsonSchema: Plugin = {
  name: "zod-without-from-json-schema",
  setup(build) {
    build.onResolve({ filter: /^\.\/from-json-schema\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer) ? { path: args.importer, namespace: "zod-without-from-json-schema" } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "zod-without-from-json-schema" }, () => ({
      contents: 'export function fromJSONSchema() { throw new Error("z.fromJSONSchema is left out of the functions\' builds (stacks/functions.ts)"); }',
      loader: "js",
    }));
  },
};

/**
 * zod's JSON Schema generation (`z.toJSONSchema` and each schema's processor, about 20 KB
 * minified) is only used to write the OpenAPI and AsyncAPI documents, which the functions serve
 * as written files (the docs function) and never generate. In the functions' builds the
 * processors are left out (a schema's `toJSONSchema()` throws, saying so); `aggregateChecks`,
 * which a string or number schema's `minLength`, `maximum`… getters read, stays as zod has it.
 */
export const zodWithoutJsonSchema: Plugin = {
  name: "zod-without-json-schema",
  setup(build) {
    build.onResolve({ filter: /json-schema-processors\.js$/ }, (args) => {
      if (!/[\\/]node_modules[\\/]zod[\\/]/.test(args.importer) || args.pluginData === "real") return undefined;
      return { path: join(args.resolveDir, args.path), namespace: "zod-without-json-schema" };
    });
    build.onLoad({ filter: /.*/, namespace: "zod-without-json-schema" }, (args) => ({
      contents: [
        `export { aggregateChecks } from ${JSON.stringify(args.path)};`,
        "export function toJSONSchema() { throw new Error(\"zod's JSON Schema generation is left out of the functions' builds (stacks/functions.ts)\"); }",
        // The JSON Schema generator's table of processors: empty, so it never finds one.
        "export const allProcessors = {};",
      ].join("\n"),
      resolveDir: dirname(args.path),
      pluginData: "real",
      loader: "js",
    }));
  },
};

/**
 * The X-Ray SDK's AWS SDK v2 patcher (`captureAWS`) checks the v2 SDK's version with the whole of
 * `semver` (about 29 KB minified); the service traces v3 clients only. In the functions' builds
 * the X-Ray SDK gets the one comparison it calls.
 */
export const xrayWithoutSemver: Plugin = {
  name: "xray-without-semver",
  setup(build) {
    build.onResolve({ filter: /^semver$/ }, (args) =>
      /[\\/]node_modules[\\/]aws-xray-sdk-core[\\/]/.test(args.importer) ? { path: "semver", namespace: "xray-without-semver" } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "xray-without-semver" }, () => ({
      contents: [
        "const parts = (version) => String(version).split(/[.+-]/).slice(0, 3).map(Number);",
        "exports.gte = (a, b) => { const x = parts(a), y = parts(b); for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] > y[i]; return true; };",
      ].join("\n"),
      loader: "js",
    }));
  },
};

/**
 * Lambda hands every function its role's credentials in the environment, the first link of the
 * AWS SDK's default chain; the rest of the chain (SSO, profiles, processes, web identity, ECS and
 * EC2 metadata, with the STS and SSO clients they carry: about 100 KB minified) can never answer
 * there. In the functions' builds the default chain is the environment alone.
 */
export const lambdaCredentials: Plugin = {
  name: "lambda-credentials",
  setup(build) {
    build.onResolve({ filter: /^@aws-sdk\/credential-provider-node$/ }, (args) => ({
      path: args.path,
      namespace: "lambda-credentials",
      pluginData: args.resolveDir,
    }));
    build.onLoad({ filter: /.*/, namespace: "lambda-credentials" }, (args) => ({
      contents: 'import { fromEnv } from "@aws-sdk/credential-provider-env";\nexport const defaultProvider = (init = {}) => fromEnv(init);',
      resolveDir: args.pluginData as string,
      loader: "js",
    }));
  },
};

/**
 * `@hono/zod-openapi` imports zod-to-openapi's document generators (most of that library, about
 * 20 KB minified) for `getOpenAPIDocument`, which only the embedded app's `/openapi.json` and
 * `npm run openapi` call (the docs function serves the written file). In the functions' builds
 * the generators are a class that says so; the registry and `.openapi()` stay as they are.
 */
export const zodOpenApiWithoutGenerators: Plugin = {
  name: "zod-openapi-without-generators",
  setup(build) {
    build.onResolve({ filter: /^@asteasolutions\/zod-to-openapi$/ }, async (args) => {
      if (!/[\\/]@hono[\\/]zod-openapi[\\/]/.test(args.importer)) return undefined;
      const real = await build.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind });
      return { path: real.path, namespace: "zod-openapi-without-generators" };
    });
    build.onLoad({ filter: /.*/, namespace: "zod-openapi-without-generators" }, (args) => ({
      contents: [
        `export { OpenAPIRegistry, extendZodWithOpenApi, getOpenApiMetadata } from ${JSON.stringify(args.path)};`,
        'class LeftOut { constructor() { throw new Error("The OpenAPI document generators are left out of the functions\' builds (stacks/functions.ts)"); } }',
        "export { LeftOut as OpenApiGeneratorV3, LeftOut as OpenApiGeneratorV31 };",
      ].join("\n"),
      resolveDir: dirname(args.path),
      loader: "js",
    }));
  },
};

/**
 * The AWS SDK's protocols load event-stream serialisation (about 15 KB minified) when an operation
 * streams events; none of the services the functions call (DynamoDB, SQS, Step Functions, Secrets
 * Manager, the WebSocket management API) has such an operation. In the functions' builds it is a
 * stub that says so.
 */
export const smithyWithoutEventStreams: Plugin = {
  name: "smithy-without-event-streams",
  setup(build) {
    build.onResolve({ filter: /^@smithy\/core\/event-streams$/ }, () => ({ path: "event-streams", namespace: "smithy-without-event-streams" }));
    build.onLoad({ filter: /.*/, namespace: "smithy-without-event-streams" }, () => ({
      contents: [
        'const leftOut = () => { throw new Error("Event streams are left out of the functions\' builds (stacks/functions.ts)"); };',
        "export { leftOut as EventStreamSerde, leftOut as eventStreamSerdeProvider };",
      ].join("\n"),
      loader: "js",
    }));
  },
};

/** The services the functions call that the X-Ray SDK's whitelist names (the parameters it records on their subsegments). */
const TRACED_SERVICES = ["dynamodb", "sqs"];

/**
 * The X-Ray SDK's whitelist of which parameters of an AWS call it records (about 10 KB) names S3,
 * SNS, Lambda and SageMaker too; in the functions' builds it keeps the services they call.
 */
export const xrayWhitelistOfOurs: Plugin = {
  name: "xray-whitelist-of-ours",
  setup(build) {
    build.onLoad({ filter: /[\\/]aws-xray-sdk-core[\\/].*[\\/]aws_whitelist\.json$/ }, async (args) => {
      const whole = JSON.parse(await readFile(args.path, "utf8")) as { services: Record<string, unknown> };
      const services = Object.fromEntries(Object.entries(whole.services).filter(([name]) => TRACED_SERVICES.includes(name)));
      return { contents: JSON.stringify({ ...whole, services }), loader: "json" };
    });
  },
};

/**
 * A schema's `.describe("…")` text, and a route's summary, description and error texts, are read
 * only where the OpenAPI and AsyncAPI documents are written (scripts/openapi.ts; the docs function
 * serves the written file), yet they rode in every bundle (about 12 KB of the backtest function's).
 * In the functions' builds such a text that is one plain string literal is left empty; other calls
 * stay as written.
 */
export const zodWithoutDescriptions: Plugin = {
  name: "zod-without-descriptions",
  setup(build) {
    build.onLoad({ filter: /[\\/]packages[\\/][^\\/]+[\\/]src[\\/].*\.ts$/ }, async (args) => {
      let source = (await readFile(args.path, "utf8")).replace(PLAIN_DESCRIBE, '.describe("")');
      // A route's summary, description and error texts (the API groups' `createRoute` calls) are the OpenAPI document's too.
      if (/[\\/]api[\\/]src[\\/]groups[\\/]/.test(args.path)) source = source.replace(ROUTE_TEXT, '$1: ""').replace(ERROR_TEXT, 'errorResponse("")');
      return { contents: source, loader: "ts" };
    });
  },
};

/** A route's `summary:` or `description:` given as one plain double-quoted string, across lines. */
const ROUTE_TEXT = /\b(summary|description):\s*"(?:[^"\\\n]|\\.)*"/g;
/** `errorResponse(` with one plain double-quoted string, then `)`. */
const ERROR_TEXT = /\berrorResponse\(\s*"(?:[^"\\\n]|\\.)*"\s*\)/g;

/** `.describe(` with one plain string literal (no interpolation), then `)`, across lines. */
const PLAIN_DESCRIBE = /\.describe\(\s*(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`[^`$\\]*`)\s*,?\s*\)/g;

/**
 * How functions are built. `longport` is a native module (a `.node` binary esbuild cannot
 * bundle): it is left out of every bundle, and only the functions that can talk to the provider
 * get it, copied with the x64 binary beside the bundle (the registry has no arm64 build of the
 * 3.0.18 the service pins), so those run on x86_64. The captcha font and the docs page's Swagger
 * UI assets are files read at run time: copied to where their readers look. `keepNames` (SST
 * turns it on) is off: it wraps every function and class of a bundle in a call that keeps its
 * name (some 33 KB of the MTF function's 1 MB), and nothing here reads a constructor's name (the
 * DynamoDB marshaller's binary check reads built-ins' names, which minifying leaves alone).
 */
export const NODEJS = {
  format: "esm",
  minify: true,
  esbuild: {
    external: ["longport"],
    keepNames: false,
    plugins: [
      zodEnglishOnly,
      zodWithoutFromJsonSchema,
      zodWithoutJsonSchema,
      zodOpenApiWithoutGenerators,
      smithyWithoutEventStreams,
      xrayWithoutSemver,
      xrayWhitelistOfOurs,
      lambdaCredentials,
      zodWithoutDescriptions,
    ],
  },
} as const satisfies FunctionProps["nodejs"];

const LONGPORT_FILES: NonNullable<FunctionProps["copyFiles"]> = [
  { from: "node_modules/longport/index.js", to: "node_modules/longport/index.js" },
  { from: "node_modules/longport/package.json", to: "node_modules/longport/package.json" },
  { from: "node_modules/longport-linux-x64-gnu", to: "node_modules/longport-linux-x64-gnu" },
];

// svg-captcha reads `<its lib>/../fonts/Comismsh.ttf`; bundled, "its lib" is the bundle's folder (packages/functions/src/<kind>).
const CAPTCHA_FILES: NonNullable<FunctionProps["copyFiles"]> = [
  { from: "node_modules/svg-captcha/fonts/Comismsh.ttf", to: "packages/functions/src/fonts/Comismsh.ttf" },
];

// The docs page's Swagger UI, and the OpenAPI and AsyncAPI documents `npm run openapi` writes (read through `@tp/api/openapi.json`, `@tp/api/asyncapi.json`).
const SWAGGER_FILES: NonNullable<FunctionProps["copyFiles"]> = [
  ...["package.json", "swagger-ui.css", "swagger-ui-bundle.js"].map((file) => ({
    from: `node_modules/swagger-ui-dist/${file}`,
    to: `node_modules/swagger-ui-dist/${file}`,
  })),
  { from: "packages/api/openapi.json", to: "node_modules/@tp/api/openapi.json" },
  { from: "packages/api/asyncapi.json", to: "node_modules/@tp/api/asyncapi.json" },
];

/** HTTP groups that never reach the market-data or brokerage provider. */
const PROVIDER_FREE_GROUPS = new Set(["system", "auth", "api-keys", "audit", "users", "strategies", "indicators", "risk", "channel-presets", "flows"]);

/** What a function needs besides its handler: the provider SDK, the captcha font, the docs assets. */
export function buildProps(needs: { provider?: boolean; captcha?: boolean; docs?: boolean }): Pick<FunctionProps, "architecture" | "copyFiles" | "nodejs"> {
  const copyFiles = [...(needs.provider ? LONGPORT_FILES : []), ...(needs.captcha ? CAPTCHA_FILES : []), ...(needs.docs ? SWAGGER_FILES : [])];
  return {
    ...(needs.provider ? { architecture: "x86_64" as const } : {}),
    ...(copyFiles.length ? { copyFiles } : {}),
    nodejs: NODEJS,
  };
}

/** The docs function is no group's and reaches no provider (`fallback`, `$default`, holds assets, which does). */
const NOT_A_GROUP = new Set(["docs"]);

/** The build of an HTTP function. */
export function httpBuildProps(group: string) {
  return buildProps({ provider: !PROVIDER_FREE_GROUPS.has(group) && !NOT_A_GROUP.has(group), captcha: group === "auth", docs: group === "docs" });
}

/**
 * Reserved concurrency of the workflow task functions, by `<workflow>.<task>` (docs/operations.md
 * "Sweeps"): each is capped, and what it reserves is kept from the functions without a
 * reservation (the API's), so a sweep cannot starve the API. With S the stage's sweep width
 * (`sweepMaxConcurrency`): a chunk 2 S (two sweeps at full width, or one and the backtests
 * started alone), Prepare and Finalize S (a run's child calls them one after the other), the
 * failure task and the sweep's own three tasks (one call per sweep at a time) 5. Above the cap a
 * task is throttled and the state machine retries it (`Lambda.TooManyRequestsException`).
 * `WORKFLOW_RESERVED_CONCURRENCY=0` at deploy time reserves nothing (an account whose
 * concurrency limit is too low to keep 100 unreserved beside them).
 */
export function workflowReservedConcurrency(stage: string): Record<string, number> {
  if (process.env.WORKFLOW_RESERVED_CONCURRENCY?.trim() === "0") return {};
  const width = sweepMaxConcurrency(stage);
  return {
    "backtest.runChunk": 2 * width,
    "backtest.prepare": width,
    "backtest.finalize": width,
    "backtest.fail": 5,
    // A walk-forward's grid chunks: the Map runs at most S at once.
    "sweep.runGrid": width,
    "sweep.plan": 5,
    "sweep.finalize": 5,
    "sweep.fail": 5,
  };
}
