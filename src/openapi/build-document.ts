import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { NON_TOOL_PROBLEMS, PROBLEMS, type ProblemCode } from '../errors.ts';
import { PATHS } from '../http/paths.ts';
import type { Tool } from '../registry/define-tool.ts';
import { deprecationNotice } from '../registry/deprecation-notice.ts';
import { IDEMPOTENCY_KEY_PATTERN } from '../registry/idempotency.ts';
import { problemCodesByStatus } from '../registry/tool-problems.ts';
import { ChangeSchema, resultEnvelope } from '../registry/result-envelope.ts';
import { TOOL_EXAMPLES, type ToolExample } from './examples.ts';
import { EVENTS_TAG, TAG_DESCRIPTIONS } from './tags.ts';
import { eventTypesOf } from '../events/catalogue.ts';
import { registerWebhooks } from './webhooks.ts';

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

export const OPENAPI_INFO = { title: 'Agent API', version: '1.0.0' } as const;
export const OPENAPI_CONTENT_TYPE = 'application/vnd.oai.openapi+json;version=3.1';
const SECURITY_SCHEME = 'bearerAuth';

const PROBLEM_CODES = Object.keys(PROBLEMS) as [ProblemCode, ...ProblemCode[]];

// `.meta({ id })` makes zod-to-openapi emit these as components and $ref them. They are copies: the shared
// ChangeSchema stays id-free so the MCP output schemas (z.toJSONSchema) stay self-contained.
const ProblemDetails = z
  .object({
    type: z.string().describe('URI of the problem type: /problems/<code> on this service (a human page), or the IANA quota-exceeded type for 429.'),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().describe('What went wrong with this request (validation errors name the field paths).'),
    instance: z.string().describe('<path>#req-<request id>; the request id is also sent as X-Request-Id.'),
    code: z.enum(PROBLEM_CODES).describe('Stable machine-readable problem code.'),
    resolution: z.string().describe('What to do next.'),
    ok: z.literal(false).describe('Legacy field, kept for one compatibility window.'),
    error: z.string().describe('Legacy field (= detail), kept for one compatibility window.'),
  })
  .meta({ id: 'ProblemDetails', description: 'RFC 9457 problem details with this service’s code and resolution members.' });
const ChangeComponent = ChangeSchema.meta({ id: 'Change', description: 'One entity a write would change.' });

/** Response headers, declared once under components.headers. */
const HEADERS = {
  'RateLimit-Policy': 'Quota policies that counted this request (draft-ietf-httpapi-ratelimit-headers), e.g. `"anon";q=60;w=60`.',
  RateLimit: 'Remaining quota per policy, e.g. `"anon";r=59;t=60`.',
  'RateLimit-Limit': 'Legacy: quota of the most restrictive policy.',
  'RateLimit-Remaining': 'Legacy: requests left in the window of the most restrictive policy.',
  'RateLimit-Reset': 'Legacy: seconds until that window ends.',
  'Retry-After': 'Seconds to wait before retrying.',
  'WWW-Authenticate': 'Bearer challenge naming the required scope.',
  'X-Request-Id': 'Identifier of this request in the service logs.',
  Deprecation: 'RFC 9745: the operation is deprecated (Unix time when it was).',
  Sunset: 'RFC 8594: the HTTP-date after which the operation may be removed.',
  Link: 'rel="deprecation": the migration guide.',
  'Idempotent-Replayed': '`true` when this is the stored answer to an earlier request with the same Idempotency-Key.',
} as const;
type HeaderName = keyof typeof HEADERS;

const RATE_LIMIT_HEADERS: HeaderName[] = ['RateLimit-Policy', 'RateLimit', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];

/**
 * Every error status a tool call can answer with, and its headers. components.responses lists each with all the
 * service's codes of that status; an operation refers to it when the tool can meet all of them, and otherwise
 * gets its own response naming the codes it can meet (registry/tool-problems.ts).
 */
const ERROR_RESPONSES: Record<number, { name: string; headers: HeaderName[] }> = {
  400: { name: 'BadRequest', headers: [] },
  401: { name: 'Unauthorized', headers: ['WWW-Authenticate'] },
  403: { name: 'Forbidden', headers: ['WWW-Authenticate'] },
  404: { name: 'NotFound', headers: [] },
  409: { name: 'Conflict', headers: [] },
  413: { name: 'PayloadTooLarge', headers: [] },
  415: { name: 'UnsupportedMediaType', headers: [] },
  422: { name: 'UnprocessableContent', headers: [] },
  429: { name: 'TooManyRequests', headers: ['Retry-After', ...RATE_LIMIT_HEADERS] },
  500: { name: 'InternalServerError', headers: [] },
  503: { name: 'ServiceUnavailable', headers: ['Retry-After'] },
};

const headerRefs = (names: readonly HeaderName[]) =>
  Object.fromEntries(names.map((h) => [h, { $ref: `#/components/headers/${h}` }]));

const codesOfStatus = (status: number) => PROBLEM_CODES.filter((c) => PROBLEMS[c].status === status && !NON_TOOL_PROBLEMS.has(c));

function problemResponse(status: number, codes: readonly ProblemCode[]) {
  const headers = ERROR_RESPONSES[status]?.headers ?? [];
  return {
    description: codes.length
      ? `Problem codes: ${codes.map((c) => `\`${c}\``).join(', ')}.`
      : 'Declared for every tool; this tool has no problem code of its own with this status.',
    ...(headers.length ? { headers: headerRefs(headers) } : {}),
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/ProblemDetails' } } },
  };
}

/** The operation's error responses: a reference where the tool can meet every code of the status, else its own list. */
function errorResponses(tool: Tool): RouteConfig['responses'] {
  return Object.fromEntries(
    [...problemCodesByStatus(tool)].map(([status, codes]) => {
      const shared = ERROR_RESPONSES[status];
      const all = codesOfStatus(status);
      const same = shared && codes.length === all.length;
      return [String(status), same ? { $ref: `#/components/responses/${shared.name}` } : problemResponse(status, codes)];
    }),
  );
}

const DESCRIPTION = [
  'Tools of a storefront and content-management service. Every tool is one operation: `POST /api/v1/tools/<tool name>` with a JSON object body (send `{}` when it takes no fields); success is `{"ok": true, "result": …}`.',
  'Catalog reads are anonymous; everything else needs `Authorization: Bearer <API key>` with the scope named in `x-required-scope` of the operation.',
  'Write tools accept `"dryRun": true` (validate and report the changes without making them); destructive ones need `"confirm": true`.',
  'Errors are RFC 9457 `application/problem+json` with a stable `code` and a `resolution`; `/problems/<code>` explains each code.',
  'Amounts are integers in øre (1/100 DKK). The same tools are served over MCP (Streamable HTTP) at `/api/mcp`.',
].join('\n\n');

/**
 * The document as served: `servers` is the origin the client reached (PUBLIC_BASE_URL, else the request's scheme
 * and Host). The committed copy says `/`, i.e. "wherever this document was fetched from".
 */
export function withServer(doc: OpenApiDocument, url: string): OpenApiDocument {
  return { ...doc, servers: [{ url, description: 'This service.' }] };
}

/** The OpenAPI 3.1 document: a pure function of the tool list, so the committed copy can be checked for staleness. */
export function buildDocument(tools: readonly Tool[]): OpenApiDocument {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('parameters', 'IdempotencyKey', {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description: 'draft-ietf-httpapi-idempotency-key-header: a retry with the same key and body replays the first answer instead of writing twice; the same key with another body is 422 `idempotency_key_reused`.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY_PATTERN.source },
  });
  registry.registerComponent('securitySchemes', SECURITY_SCHEME, {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key (`aak_…`) restricted to scopes; create one with `npm run cli -- keys create`.',
  });
  for (const [name, description] of Object.entries(HEADERS)) {
    registry.registerComponent('headers', name, { description, schema: { type: 'string' } });
  }
  for (const [status, { name }] of Object.entries(ERROR_RESPONSES)) {
    registry.registerComponent('responses', name, problemResponse(Number(status), codesOfStatus(Number(status))));
  }

  const tags = [...new Set(tools.map(domainOf))];
  for (const tool of tools) registry.registerPath(operation(tool));
  registerWebhooks(registry);

  // ProblemDetails is only $ref'd from raw response components, so hand it to the generator explicitly, wrapped:
  // a bare zod 4 object has a `type` property and is mistaken for a definition (zod-to-openapi 9.1.0).
  const doc = new OpenApiGeneratorV31([...registry.definitions, { type: 'schema', schema: ProblemDetails }]).generateDocument({
    openapi: '3.1.0',
    info: { ...OPENAPI_INFO, description: DESCRIPTION, license: { name: 'MIT', identifier: 'MIT' } },
    servers: [{ url: '/', description: 'The origin this document is served from.' }],
    tags: [...tags.map((name) => (Object.hasOwn(TAG_DESCRIPTIONS, name) ? { name, description: TAG_DESCRIPTIONS[name] } : { name })), EVENTS_TAG],
  });
  return withoutUnusedComponents(doc);
}

/**
 * Drops shared responses and headers no operation refers to (e.g. Deprecation while no tool is deprecated): an
 * unreferenced component is noise to readers and a lint warning. Responses go first, since they refer to headers.
 */
function withoutUnusedComponents(doc: OpenApiDocument): OpenApiDocument {
  const components = doc.components ?? {};
  for (const kind of ['responses', 'headers'] as const) {
    const declared = components[kind] ?? {};
    const { [kind]: _own, ...rest } = components;
    const elsewhere = JSON.stringify({ ...doc, components: rest });
    components[kind] = Object.fromEntries(Object.entries(declared).filter(([name]) => elsewhere.includes(`"#/components/${kind}/${name}"`)));
  }
  return doc;
}

function operation(tool: Tool): RouteConfig {
  const success: ResponseConfig = {
    description: [
      `The tool ran. \`result\` is ${resultShape(tool.output)}.`,
      tool.write ? 'With `"dryRun": true` nothing changed: the body also has `dryRun: true` and the `changes` the call would make.' : '',
    ].filter(Boolean).join(' '),
    headers: headerRefs([
      ...RATE_LIMIT_HEADERS,
      'X-Request-Id',
      ...(tool.write ? (['Idempotent-Replayed'] as const) : []),
      ...(tool.deprecated ? (['Deprecation', 'Sunset', 'Link'] as const) : []),
    ]),
    content: { 'application/json': { schema: resultEnvelope(tool, ChangeComponent), ...examplesOf(tool, (ex) => ({ ok: true, result: ex.result })) } },
  };
  return {
    method: 'post',
    path: `${PATHS.toolPrefix}${tool.name}`,
    operationId: tool.name,
    summary: tool.title,
    description: operationDescription(tool),
    tags: [domainOf(tool)],
    // `{}` (no credentials) is listed for anonymous tools; a key is still accepted and rate-limited per key.
    security: [{ [SECURITY_SCHEME]: [tool.scope] }, ...(tool.anonymous ? [{}] : [])],
    ...(tool.deprecated ? { deprecated: true } : {}),
    'x-required-scope': tool.scope,
    'x-anonymous': tool.anonymous,
    'x-reversible': tool.reversible.length > 0,
    ...(tool.rateLimit ? { 'x-rate-limit': { policy: tool.name, limit: tool.rateLimit.max, windowSeconds: tool.rateLimit.windowSeconds } } : {}),
    ...(tool.write ? { 'x-events': eventTypesOf(tool) } : {}),
    ...(tool.write ? { parameters: [{ $ref: '#/components/parameters/IdempotencyKey' }] } : {}),
    request: { body: { required: true, content: { 'application/json': { schema: tool.input, ...examplesOf(tool, (ex) => ex.request) } } } },
    responses: { 200: success, ...errorResponses(tool) },
  };
}

/** The tool's recorded example (src/openapi/examples.json) as an OpenAPI `examples` map; none for a tool without one. */
function examplesOf(tool: Tool, value: (ex: ToolExample) => unknown) {
  const ex = Object.hasOwn(TOOL_EXAMPLES, tool.name) ? TOOL_EXAMPLES[tool.name] : undefined;
  return ex ? { examples: { [exampleKey(tool)]: { summary: ex.summary, value: value(ex) } } } : {};
}

const exampleKey = (tool: Tool) => tool.name.replace(/\W/g, '_');

function operationDescription(tool: Tool): string {
  const notes = [
    tool.anonymous ? `Anonymous; a key is optional (scope \`${tool.scope}\`).` : `Requires a key with scope \`${tool.scope}\`.`,
    tool.write ? 'Accepts `"dryRun": true` to preview the changes.' : '',
    tool.requiresConfirm ? 'Needs `"confirm": true` (422 `confirmation_required` otherwise).' : '',
    tool.write && eventTypesOf(tool).length > 0 ? `Emits ${eventTypesOf(tool).map((type) => `\`${type}\``).join(', ')} (see Webhooks).` : '',
  ].filter(Boolean);
  const deprecation = tool.deprecated ? `${deprecationNotice(tool)}\n\n` : '';
  return `${deprecation}${tool.description}\n\n${notes.join(' ')}`;
}

/** One phrase for the 200 description: what `result` holds, from the output schema (its full shape is the schema). */
function resultShape(output: z.ZodType): string {
  const phrase = (schema: Record<string, unknown>): string => {
    const fields = Object.keys((schema.properties as object | undefined) ?? {});
    if (schema.type === 'array') return `an array of ${phrase((schema.items as Record<string, unknown> | undefined) ?? {}).replace(/^an object with/, 'objects, each with').replace(/^an? /, '')}`;
    if (fields.length) return `an object with ${fields.map((f) => `\`${f}\``).join(', ')}`;
    const variants = (schema.anyOf ?? schema.oneOf) as Record<string, unknown>[] | undefined;
    if (variants) return variants.map(phrase).join(', or ');
    return schema.type === 'null' ? '`null`' : `a ${String(schema.type ?? 'JSON value')}`;
  };
  return phrase(z.toJSONSchema(output, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>);
}

function domainOf(tool: Tool): string {
  return tool.name.split('.')[0];
}
