// The e-mail worker as the server runs it (`node --import tsx src/server.ts`, the source `npm start` bundles): started
// with the server when SMTP_URL is set, it sends a checkout's confirmation to a real SMTP server, and SIGTERM stops
// it with the server (exit 0, nothing left claimed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/auth/key-admin.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { CHECKOUT_CONTACT, makeProduct } from '../helpers/factories.ts';
import { startServerProcess } from '../helpers/processes.ts';
import { startSmtp, type TestSmtp } from './smtp.ts';

let database: TestDatabase;
let smtp: TestSmtp;
beforeAll(async () => {
  database = await createTestDatabase();
  smtp = await startSmtp();
});
afterAll(async () => {
  await smtp?.close();
  await database?.drop();
});

describe('the e-mail worker in the server process', () => {
  it('sends a manual checkout’s confirmation, and stops with the server on SIGTERM', async () => {
    const { key } = await createKey(database.db, { name: 'mail', scopes: ['cart:write'] });
    const server = await startServerProcess(['--import', 'tsx', 'src/server.ts'], {
      NODE_ENV: 'test', DATABASE_URL: database.url, REDIS_URL: undefined, SMTP_URL: smtp.url, MAIL_FROM: 'Butikken <butik@example.dk>',
    });
    try {
      const call = async (tool: string, body: unknown) => {
        const res = await fetch(`http://127.0.0.1:${server.port}/api/v1/tools/${tool}`, {
          method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify(body),
        });
        expect(res.status).toBe(200);
        return ((await res.json()) as { result: Record<string, string> }).result;
      };
      const product = await makeProduct(database.db);
      const { cartId } = await call('cart.create', { items: [{ productSlug: product.slug, quantity: 1 }] });
      const { orderId } = await call('checkout.create_order', { cartId, ...CHECKOUT_CONTACT });
      const [mail] = await smtp.waitFor(1, 20_000);
      expect(mail.subject).toBe(`Ordrebekræftelse ${orderId} fra Agent Shop`);
      expect(mail.from).toBe('butik@example.dk');
      await expect.poll(async () => (await database.db.emailOutbox.findFirstOrThrow({ where: { orderId } })).status).toBe('sent');
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.output()).not.toMatch(/e-mail worker could not|Error/);
  }, 90_000);
});
