import examples from './examples.json' with { type: 'json' };

/**
 * One request and its answer per tool, published in the OpenAPI document. The requests are written by hand
 * against the demo data (`npm run cli -- seed`); `result` is what the service answered, recorded by
 * test/openapi/examples.test.ts, which also replays every request and fails when an answer no longer matches
 * (docs/reference.md, "Examples"). Run in the order of this file: later requests use what earlier ones created.
 */
export type ToolExample = {
  summary: string;
  request: Record<string, unknown>;
  /** Request fields taken from an earlier example's result: field → "<tool>:<dotted path in its result>". */
  bind?: Record<string, string>;
  result?: unknown;
};

export const TOOL_EXAMPLES: Readonly<Record<string, ToolExample>> = examples;
