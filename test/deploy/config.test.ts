// Settings are checked when the process starts: a bad value stops it with one line that names the variable and what
// it accepts (never the value, which may be a secret), without a stack trace. Unknown variables are ignored.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { SetupError } from '../../src/setup-error.ts';
import { TEST_SECRETS_KEY } from '../helpers/secrets-key.ts';
import { runServerUntilExit } from './deploy-app.ts';

describe('configuration checked at start (src/config.ts)', () => {
  it.each([
    ['PORT', 'abc', 'Invalid setting PORT: expected a TCP port number from 0 to 65535.'],
    ['TRUST_PROXY', 'maybe', 'Invalid setting TRUST_PROXY: expected false, a hop count (e.g. 1), or a comma-separated list of proxy addresses and CIDR ranges (e.g. 10.0.0.0/8,127.0.0.1; also loopback, linklocal, uniquelocal).'],
    ['DATABASE_URL', 'postgres-on-localhost', 'Invalid setting DATABASE_URL: expected a postgresql:// URL.'],
  ])('%s=%s stops the start with exit code 1 and exactly one line on stderr', (name, value, line) => {
    const run = runServerUntilExit({ DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/never', [name]: value });
    expect(run).toEqual({ code: 1, stdout: '', stderr: `${line}\n` });
  });

  it('NODE_ENV=production without PUBLIC_BASE_URL stops the start with one line naming it', () => {
    const run = runServerUntilExit({ DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/never', PUBLIC_BASE_URL: undefined });
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'Invalid setting PUBLIC_BASE_URL: required when NODE_ENV=production (the OAuth issuer and token audience must not come from the Host header); set it to the https URL clients reach the service at.\n',
    });
    expect(loadConfig({ NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://shop.example.com/', SECRETS_KEY: TEST_SECRETS_KEY }).publicBaseUrl).toBe('https://shop.example.com');
    expect(loadConfig({ NODE_ENV: 'development' }).publicBaseUrl).toBeUndefined();
  });

  it('never repeats the rejected value, which may be a secret', () => {
    expect(() => loadConfig({ REDIS_URL: 's3cret-password' })).toThrow(new SetupError('Invalid setting REDIS_URL: expected a redis:// or rediss:// URL.'));
  });

  it('names each bad setting on its own line', () => {
    expect(() => loadConfig({ PORT: '70000', DRAIN_DELAY_MS: '-5', LOG_LEVEL: 'loud' })).toThrow(
      new SetupError(
        [
          'Invalid setting PORT: expected a TCP port number from 0 to 65535.',
          'Invalid setting LOG_LEVEL: expected fatal, error, warn, info, debug, trace or silent.',
          'Invalid setting DRAIN_DELAY_MS: expected a whole number of milliseconds, 0 or more.',
        ].join('\n'),
      ),
    );
  });

  it('ignores unknown variables and treats an empty value as unset', () => {
    const config = loadConfig({ SOME_OTHER_TOOL_SETTING: 'anything', PORT: '', REDIS_URL: '', TRUST_PROXY: '' });
    expect({ port: config.port, redisUrl: config.redisUrl, trustProxy: config.trustProxy }).toEqual({ port: 3000, redisUrl: undefined, trustProxy: false });
  });

  it.each([
    ['false', false],
    ['0', false],
    ['2', 2],
    ['10.0.0.0/8, 127.0.0.1,::1, fd00::/8', ['10.0.0.0/8', '127.0.0.1', '::1', 'fd00::/8']],
    ['loopback,uniquelocal', ['loopback', 'uniquelocal']],
  ])('TRUST_PROXY=%s is accepted', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it.each(['true', '10.0.0.0/33', '10.0.0.300', '10.0.0.0/8/1', 'proxy.internal', ','])('TRUST_PROXY=%s is refused', (value) => {
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(/^Invalid setting TRUST_PROXY: expected false, a hop count/);
  });
});
