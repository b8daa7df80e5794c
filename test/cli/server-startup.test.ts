// The first minutes with the server (`node --import tsx src/server.ts`, the source `npm start` bundles) on a test
// database: piped, its logs are one JSON object per line and "where is everything" is one structured `ready` line;
// on a terminal, logs are human-readable lines and the same places are printed once as a short block.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { announceStartup } from '../../src/startup-banner.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { freePort, startServerProcess } from '../helpers/processes.ts';
import { ANSI, inTerminal } from './processes.ts';

const SERVER = ['--import', 'tsx', 'src/server.ts'];
const EMAIL_OFF = 'off: SMTP_URL is not set, so no order confirmations or shipping notices are sent';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

describe('server start-up output', () => {
  it('piped: JSON log lines only (the database and shutdown steps included), and one "ready" line with the URLs of the API, /docs, OpenAPI and MCP', async () => {
    const server = await startServerProcess(SERVER, { DATABASE_URL: database.url, REDIS_URL: undefined, LOG_LEVEL: 'info' });
    const base = `http://127.0.0.1:${server.port}`;
    try {
      expect((await fetch(`${base}/docs`)).status).toBe(200);
      expect((await fetch(`${base}/openapi.json`)).status).toBe(200);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    const lines = server.output().split('\n').filter((l) => l.length > 0);
    type Line = { level: number; time: number; pid: number; msg: string; component?: string; urls?: Record<string, string>; email?: string; req?: { url: string } };
    const logs = lines.map((line) => JSON.parse(line) as Line);
    for (const log of logs) expect(log).toMatchObject({ level: expect.any(Number), time: expect.any(Number), pid: server.child.pid, msg: expect.any(String) });
    // The entry's own lines (src/process-log.ts): the migrations check before the logger exists, the drain after.
    expect(logs.filter((l) => l.component === 'db').map((l) => l.msg)).toContain('database schema is up to date');
    expect(logs.filter((l) => l.component === 'server').map((l) => l.msg)).toContain('SIGTERM: draining in-flight requests, then stopping');
    const ready = logs.filter((l) => l.msg === 'ready');
    expect(ready).toHaveLength(1);
    expect(ready[0].urls).toEqual({
      api: `${base}/api/v1/tools/<tool.name>`,
      docs: `${base}/docs`,
      openapi: `${base}/openapi.json`,
      mcp: `${base}/api/mcp`,
      storefront: `${base}/`,
    });
    // Said once: without SMTP_URL no e-mail is sent (docs/email.md).
    expect(ready[0].email).toBe(EMAIL_OFF);
    expect(logs.filter((l) => l.msg === 'incoming request').map((l) => l.req?.url)).toEqual(expect.arrayContaining(['/docs', '/openapi.json']));
  }, 90_000);

  it('on a terminal: human-readable log lines and the places printed once, in colour unless NO_COLOR', async () => {
    for (const colour of [true, false]) {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const server = inTerminal(SERVER, {
        DATABASE_URL: database.url, NODE_ENV: 'production', HOST: '127.0.0.1', PORT: String(port), PUBLIC_BASE_URL: base, LOG_LEVEL: 'info',
        ...(colour ? {} : { NO_COLOR: '1' }),
      });
      await server.waitFor((out) => out.includes('Agent API is ready:'));
      expect((await fetch(`${base}/health`)).status).toBe(200);
      await server.waitFor((out) => out.includes('request completed'), 10_000);
      server.interrupt();
      expect(await server.exited).toBe(0);

      const output = server.output().replaceAll('\r\n', '\n');
      expect(output.split('Agent API is ready:')).toHaveLength(2);
      const block = output.split('Agent API is ready:\n')[1].split('\n\n')[0];
      expect(block.split('\n').map((l) => l.trim().split(/ {2,}/))).toEqual([
        ['API (POST)', `${base}/api/v1/tools/<tool.name>`],
        ['Reference', `${base}/docs`],
        ['OpenAPI', `${base}/openapi.json`],
        ['MCP', `${base}/api/mcp`],
        ['Storefront', `${base}/`],
        ['API keys', 'npm run --silent cli -- keys create --help'],
        ['E-mail', EMAIL_OFF],
      ]);
      const plain = output.replace(new RegExp(ANSI.source, 'g'), '');
      expect(plain).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: Server listening at /m);
      expect(plain).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: \S+ GET \/health incoming request$/m);
      expect(plain).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: \S+ 200 request completed \(\d+ ms\)$/m);
      expect(plain).not.toMatch(/^\{/m);
      expect(ANSI.test(output)).toBe(colour);
    }
  }, 180_000);

  it('lists the storefront at GET / with the other places; PUBLIC_BASE_URL wins; the e-mail line shows no SMTP password', async () => {
    let logged = '';
    const logStream = new Writable({ write: (chunk: Buffer, _enc, done) => { logged += chunk.toString(); done(); } });
    const config = loadConfig({
      NODE_ENV: 'test', LOG_LEVEL: 'info', DATABASE_URL: database.url, PUBLIC_BASE_URL: 'https://shop.example.com/',
      SMTP_URL: 'smtp://mailer:s3cret-Pa55@smtp.example.com',
    });
    const app = await buildApp(config, { db: database.db, logStream });
    try {
      await app.listen({ host: '127.0.0.1', port: 0 });
      announceStartup(app, config);
    } finally {
      await app.close();
    }
    const ready = logged.split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((l) => l.msg === 'ready');
    expect(ready).toHaveLength(1);
    expect(ready[0].urls).toMatchObject({ docs: 'https://shop.example.com/docs', storefront: 'https://shop.example.com/' });
    // The SMTP server and sender, never SMTP_URL's password.
    expect(ready[0].email).toBe('order e-mails sent through smtp://smtp.example.com:587 from no-reply@shop.example.com');
    expect(logged).not.toContain('s3cret');
  });
});
