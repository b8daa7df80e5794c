// The official MCP conformance suite's authorization-server scenarios (`conformance authorization`) against the
// built-in authorization server. The suite needs Node >= 22 (scripts/fetch-node.mjs). Its authorization-code
// scenario waits for someone to finish the browser step; the operator's part is done here through the consent
// form contract, and the suite's own callback server receives the answer.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { freePort } from '../helpers/processes.ts';
import { openConsentPage } from './mcp-host.ts';

let t: TestApp;
let base: string;
const suite = path.resolve('node_modules/@modelcontextprotocol/conformance/dist/index.js');

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => t?.close());

it('passes every authorization-server scenario', async () => {
  const node22 = execFileSync(process.execPath, ['scripts/fetch-node.mjs', '22'], { encoding: 'utf8' }).trim();
  const port = await freePort();
  const callback = `http://127.0.0.1:${port}/callback`;
  const registered = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'MCP conformance suite', redirect_uris: [callback], response_types: ['code'], grant_types: ['authorization_code'], token_endpoint_auth_method: 'none' }),
  });
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const operatorKey = await t.key(['catalog:read']);
  const outputDir = mkdtempSync(path.join(tmpdir(), 'oauth-conformance-'));

  const child = spawn(node22, [suite, 'authorization', '--url', `${base}/oauth`, '--client-id', clientId, '--resource', `${base}/api/mcp`, '-p', String(port), '-o', outputDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const authorizationUrl = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = output.split('\n').find((line) => line.startsWith(`${base}/oauth/authorize?`));
      if (url) resolve(url.trim());
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(() => reject(new Error(`the suite ended before asking for authorization:\n${output}`)));
  });

  // The operator approves; the browser would then follow the redirects to the suite's callback server.
  const page = await openConsentPage(authorizationUrl);
  let res = await fetch(page.url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: page.jar.header() },
    body: new URLSearchParams({ csrf_token: page.csrf, operator_key: operatorKey, scope: 'catalog:read', decision: 'approve' }),
  });
  for (let hops = 0; hops < 5 && res.status >= 300 && res.status < 400; hops++) {
    page.jar.store(res);
    res = await fetch(new URL(res.headers.get('location')!, base), { redirect: 'manual', headers: { cookie: page.jar.header() } });
  }
  expect(await exited, output).toBe(0);

  const results = readdirSync(outputDir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('checks.json'))
    .flatMap((f) => JSON.parse(readFileSync(path.join(outputDir, f), 'utf8')) as { id: string; status: string; errorMessage?: string }[]);
  expect(results.map((c) => c.id).sort()).toEqual(expect.arrayContaining(['authorization-code-grant']));
  expect(results.filter((c) => c.status !== 'SUCCESS' && c.status !== 'INFO'), output).toEqual([]);
}, 120_000);
