import { appendFileSync } from "node:fs";

type Operation = { responses: Record<string, { content?: Record<string, { schema?: { allOf?: { properties?: { error_code?: { enum?: string[] } } }[] } }> }> };
type Document = { paths: Record<string, Record<string, Operation>> };

const patterns = new WeakMap<Document, { template: string; regex: RegExp; fixed: number }[]>();

/** The operation of the document that serves `method path` (the most specific template wins). */
export function operationOf(document: Document, method: string, path: string): { template: string; operation: Operation } | undefined {
  let list = patterns.get(document);
  if (!list) {
    list = Object.keys(document.paths).map((template) => ({
      template,
      regex: new RegExp(`^${template.replace(/[.]/g, "\\.").replace(/\{[^}]+\}/g, "[^/]+")}$`),
      fixed: template.split("/").filter((segment) => segment && !segment.startsWith("{")).length,
    }));
    list.sort((a, b) => b.fixed - a.fixed);
    patterns.set(document, list);
  }
  const bare = path.split("?")[0]!;
  for (const { template, regex } of list) {
    const operation = document.paths[template]![method.toLowerCase()];
    if (operation && regex.test(bare)) return { template, operation };
  }
  return undefined;
}

/** What is wrong with an error answer against the document: a status it does not list, or a code not in that answer's enum. */
export function contractProblem(document: Document, method: string, path: string, status: number, code: string): string | undefined {
  const found = operationOf(document, method, path);
  if (!found) return undefined;
  const response = found.operation.responses[String(status)];
  const where = `${method.toUpperCase()} ${found.template}`;
  if (!response) return `${where}: answered ${status} ${code}, which it does not list`;
  const codes = response.content?.["application/json"]?.schema?.allOf?.[1]?.properties?.error_code?.enum ?? [];
  if (!codes.includes(code)) return `${where}: answered ${status} ${code}, not in [${codes.join(", ")}]`;
  return undefined;
}

/**
 * Holds every error answer the API suites see to the OpenAPI document: one the document does not
 * describe throws, naming what to declare. With CONTRACT_REPORT=<file> it lists them in the file
 * instead (a survey of a whole run).
 */
export function checkContract(document: Document, method: string, path: string, status: number, body: string) {
  if (status < 400) return;
  let code: unknown;
  try {
    code = (JSON.parse(body) as { error_code?: unknown }).error_code;
  } catch {
    return;
  }
  if (typeof code !== "string") return;
  const problem = contractProblem(document, method, path, status, code);
  if (!problem) return;
  if (process.env.CONTRACT_REPORT) appendFileSync(process.env.CONTRACT_REPORT, `${problem}\n`);
  else
    throw new Error(
      `The OpenAPI document does not describe this answer: ${problem}. Name the code in the route's error answers (errorResponse / errorResponses in packages/api/src/http/group.ts), then npm run openapi.`,
    );
}
