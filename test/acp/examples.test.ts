// Replays every merchant request example the protocol publishes (examples/ of ACP 2026-04-17) against the service,
// each on a session of its own, and validates every answer against the protocol's JSON Schema: a CheckoutSession
// (with its order once completed) or the Error object. ACP has no official conformance suite; this is its stand-in.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { acp, ACP_SPECS, createBody, expectSchema, session, useAcp } from './helpers.ts';

const w = useAcp();

type Example = { name: string; body: Record<string, unknown> };

function examples(): Example[] {
  const dir = path.join(ACP_SPECS, 'examples');
  const files = [
    'examples.agentic_checkout.json', 'examples.multi_item_checkout.json',
    ...readdirSync(path.join(dir, 'discount-extension')).map((f) => `discount-extension/${f}`),
  ];
  return files.flatMap((file) => {
    const json = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Record<string, Record<string, unknown>>;
    return Object.entries(json).filter(([key]) => /request/.test(key) && json[key] !== null && typeof json[key] === 'object')
      .map(([key, body]) => ({ name: `${file}#${key}`, body }));
  });
}

/** Which endpoint an example request is for, from its name (a bare `request` with line items creates). */
const operationOf = (name: string) => (/complete/.test(name) ? 'complete' : /cancel/.test(name) ? 'cancel' : /update/.test(name) ? 'update' : 'create');

/** Every answer is the protocol's: a session (2xx) or its Error (4xx/5xx). */
function expectProtocolAnswer(res: { statusCode: number; json: () => Record<string, unknown> }) {
  const body = res.json();
  if (res.statusCode >= 400) expectSchema(body, 'Error');
  else expectSchema(body, body.status === 'completed' ? 'CheckoutSessionWithOrder' : 'CheckoutSession');
}

describe('the protocol’s request examples', () => {
  const all = examples();

  it('finds the merchant request examples', () => {
    expect(all.length).toBeGreaterThanOrEqual(15);
  });

  it.each(all.map((e) => [e.name, e] as const))('%s', async (_name, example) => {
    const op = operationOf(example.name);
    if (op === 'create') {
      expectProtocolAnswer(await acp(w, 'POST', '/acp/checkout_sessions', example.body));
      return;
    }
    const s = session(await acp(w, 'POST', '/acp/checkout_sessions', createBody([['item_123', 1]], true)), 201);
    const url = `/acp/checkout_sessions/${s.id}${op === 'update' ? '' : `/${op}`}`;
    const res = await acp(w, 'POST', url, example.body);
    expectProtocolAnswer(res);
    // The card examples pay with a SharedPaymentToken: the order is placed and paid.
    if (op === 'complete' && (example.body.payment_data as { handler_id?: string } | undefined)?.handler_id === 'card_tokenized') {
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().status).toBe('completed');
    }
    if (op === 'cancel') expect(res.json().status).toBe('canceled');
  });
});
