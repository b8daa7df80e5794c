// A local webhook receiver: records every delivery and verifies it with the official standardwebhooks package
// (never with the service's own signing code).
import type { ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { startLocalServer, type LocalServer, type RecordedRequest } from '../outbound/local-server.ts';

export type Delivery = { id: string; timestamp: string; signature: string; body: string; payload: WebhookPayload; at: number };
export type WebhookPayload = {
  id: string;
  type: string;
  createdAt: string;
  data: { entityType: string; entityId: string; sequence: number; object: Record<string, unknown> | null; changedFields: string[]; previousValues: Record<string, unknown>; revertedEntryId?: string };
};

export type Receiver = LocalServer & {
  url: string;
  deliveries: Delivery[];
  /** Decides each answer (default 204); `n` counts the requests so far, from 1. */
  respond: (answer: (req: RecordedRequest, n: number) => { status: number; body?: string; delayMs?: number }) => void;
  /** Resolves once `count` deliveries (optionally matching `where`) have arrived, or throws after `timeoutMs`. */
  waitFor: (count: number, where?: (d: Delivery) => boolean, timeoutMs?: number) => Promise<Delivery[]>;
};

/** Verifies one request against every secret given; returns whether each one verified. */
export function verifiedWith(d: Pick<Delivery, 'id' | 'timestamp' | 'signature' | 'body'>, secret: string): boolean {
  try {
    new Webhook(secret).verify(d.body, { 'webhook-id': d.id, 'webhook-timestamp': d.timestamp, 'webhook-signature': d.signature });
    return true;
  } catch {
    return false;
  }
}

export async function startReceiver(): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  let answer: (req: RecordedRequest, n: number) => { status: number; body?: string; delayMs?: number } = () => ({ status: 204 });
  let n = 0;
  const server = await startLocalServer((req, res: ServerResponse) => {
    const reply = answer(req, ++n);
    const h = (name: string) => String(req.headers[name] ?? '');
    deliveries.push({ id: h('webhook-id'), timestamp: h('webhook-timestamp'), signature: h('webhook-signature'), body: req.body, payload: JSON.parse(req.body), at: Date.now() });
    setTimeout(() => {
      res.writeHead(reply.status, { 'content-type': 'text/plain' });
      res.end(reply.body ?? '');
    }, reply.delayMs ?? 0);
  });
  return {
    ...server,
    url: `${server.origin}/hooks`,
    deliveries,
    respond: (fn) => {
      answer = fn;
    },
    async waitFor(count, where = () => true, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const matching = deliveries.filter(where);
        if (matching.length >= count) return matching;
        if (Date.now() > deadline) throw new Error(`expected ${count} deliveries, got ${matching.length}: ${matching.map((d) => d.payload.type).join(', ')}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}
