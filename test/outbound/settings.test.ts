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
  expect(() => loadConfig({ OUTBOUND_DENY_LIST: '203.0.113.0/24,intranet' })).toThrow(/Invalid setting OUTBOUND_DENY_LIST: expected a comma-separated list of IP addresses and CIDR ranges/);
});

it('never lets OUTBOUND_ALLOW_PRIVATE on in production', () => {
  expect(loadConfig({ NODE_ENV: 'test', OUTBOUND_ALLOW_PRIVATE: '1' }).outbound.allowPrivate).toBe(true);
  expect(() => loadConfig({ NODE_ENV: 'production', OUTBOUND_ALLOW_PRIVATE: '1' })).toThrow(/OUTBOUND_ALLOW_PRIVATE/);
  expect(() => loadConfig({ OUTBOUND_ALLOW_PRIVATE: 'yes' })).toThrow(/OUTBOUND_ALLOW_PRIVATE/);
});

it('needs the chosen image provider’s key, and https provider URLs unless OUTBOUND_ALLOW_PRIVATE', () => {
  expect(loadConfig({}).images).toEqual({
    provider: 'openverse',
    openverse: { baseUrl: 'https://api.openverse.org' },
    unsplash: { baseUrl: 'https://api.unsplash.com', accessKey: undefined },
    pexels: { baseUrl: 'https://api.pexels.com', apiKey: undefined },
  });
  expect(() => loadConfig({ IMAGES_PROVIDER: 'unsplash' })).toThrow(/UNSPLASH_ACCESS_KEY: required when IMAGES_PROVIDER=unsplash/);
  expect(() => loadConfig({ IMAGES_PROVIDER: 'pexels' })).toThrow(/PEXELS_API_KEY: required when IMAGES_PROVIDER=pexels/);
  expect(() => loadConfig({ IMAGES_PROVIDER: 'flickr' })).toThrow(/IMAGES_PROVIDER/);
  expect(() => loadConfig({ PEXELS_API_URL: 'http://127.0.0.1:8080' })).toThrow(/PEXELS_API_URL: must be an https URL/);
  expect(loadConfig({ NODE_ENV: 'test', OUTBOUND_ALLOW_PRIVATE: '1', PEXELS_API_URL: 'http://127.0.0.1:8080/' }).images.pexels.baseUrl).toBe('http://127.0.0.1:8080');
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
