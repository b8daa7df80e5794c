// The started server (src/server.ts): a listen that fails for a reason a setting fixes stops the start with one line
// naming that setting, and METRICS_PORT opens the metrics listener next to the API.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { freePort, startServerProcess } from '../helpers/processes.ts';
import { runServerUntilExit } from './deploy-app.ts';

let database: TestDatabase;
let taken: net.Server;
let takenPort: number;
beforeAll(async () => {
  database = await createTestDatabase();
  taken = net.createServer();
  await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
  takenPort = (taken.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await new Promise((r) => taken?.close(r));
  await database?.drop();
});

/** The server on the test database until it exits; its error lines are all that count here (progress goes to stdout). */
function startWith(env: Record<string, string>) {
  const { code, stderr } = runServerUntilExit({ HOST: '127.0.0.1', DATABASE_URL: database.url, LOG_LEVEL: 'warn', ...env });
  return { code, stderr };
}

describe('start-up problems a setting fixes', () => {
  it('PORT in use: one line naming PORT, exit code 1', { timeout: 60_000 }, () => {
    expect(startWith({ PORT: String(takenPort) })).toEqual({
      code: 1,
      stderr: `Cannot listen on 127.0.0.1:${takenPort}: another process is listening there; stop it or set PORT to a free port.\n`,
    });
  });

  it('METRICS_PORT in use: one line naming METRICS_PORT, exit code 1', { timeout: 60_000 }, async () => {
    expect(startWith({ PORT: String(await freePort()), METRICS_PORT: String(takenPort) })).toEqual({
      code: 1,
      stderr: `Cannot listen on 127.0.0.1:${takenPort}: another process is listening there; stop it or set METRICS_PORT to a free port.\n`,
    });
  });
});

describe('METRICS_PORT', () => {
  it('serves GET /metrics on its own loopback listener, never on the API port', { timeout: 60_000 }, async () => {
    const metricsPort = await freePort();
    const server = await startServerProcess(['--import', 'tsx', 'src/server.ts'], { DATABASE_URL: database.url, REDIS_URL: undefined, METRICS_PORT: String(metricsPort) });
    try {
      const call = await fetch(`http://127.0.0.1:${server.port}/api/v1/tools/categories.list`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(call.status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${server.port}/metrics`)).status).toBe(404);
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect(text).toMatch(/^agent_api_request_duration_seconds_count\{surface="rest",tool="categories.list",status="200"\} 1$/m);
      expect(server.output()).toContain(`"component":"server","msg":"metrics on http://127.0.0.1:${metricsPort}/metrics"`);
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited).toEqual({ code: 0, signal: null });
    }
  });
});
