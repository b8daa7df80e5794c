import { afterAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startServerProcess, type ServerProcess } from '../helpers/processes.ts';

let database: TestDatabase | undefined;
let server: ServerProcess | undefined;
afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
  await database?.drop();
});

it('reads the deny list and refuses entries that are not addresses or CIDR blocks', () => {
  expect(loadConfig({ OUTBOUND_DENY_LIST: ' 203.0.113.0/24, 2001:db8::/32 ,198.51.100.7' }).outbound).toEqual({
    allowPrivate: false,
    denyList: ['203.0.113.0/24', '2001:db8::/32', '198.51.100.7'],
  });
  expect(() => loadConfig({ OUTBOUND_DENY_LIST: '203.0.113.0/24,intranet' })).toThrow(/OUTBOUND_DENY_LIST: "intranet" is not an IP address/);
});

it('never lets OUTBOUND_ALLOW_PRIVATE on in production', () => {
  expect(loadConfig({ NODE_ENV: 'test', OUTBOUND_ALLOW_PRIVATE: '1' }).outbound.allowPrivate).toBe(true);
  expect(() => loadConfig({ NODE_ENV: 'production', OUTBOUND_ALLOW_PRIVATE: '1' })).toThrow(/OUTBOUND_ALLOW_PRIVATE/);
  expect(() => loadConfig({ OUTBOUND_ALLOW_PRIVATE: 'yes' })).toThrow(/OUTBOUND_ALLOW_PRIVATE/);
});

it('warns at start when OUTBOUND_ALLOW_PRIVATE is on', async () => {
  database = await createTestDatabase();
  server = await startServerProcess(['--import', 'tsx', 'src/server.ts'], {
    NODE_ENV: 'development',
    REDIS_URL: undefined,
    DATABASE_URL: database.url,
    OUTBOUND_ALLOW_PRIVATE: '1',
  });
  const warning = server.output().split('\n').map((line) => (line.startsWith('{') ? JSON.parse(line) : null)).find((l) => l?.msg?.includes('OUTBOUND_ALLOW_PRIVATE'));
  expect(warning).toMatchObject({ level: 40 });
  expect(warning.msg).toMatch(/local tests and development only/);
});
