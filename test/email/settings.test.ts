// The e-mail settings (docs/email.md, "Settings"): checked like every setting, the sender derived from the shop's
// host when MAIL_FROM is not given, and SMTP_URL's password never repeated in an error or the start-up banner.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { emailStatus } from '../../src/startup-banner.ts';

const load = (env: Record<string, string>) => loadConfig({ NODE_ENV: 'test', ...env });
const refusal = (env: Record<string, string>) => {
  try {
    load(env);
  } catch (err) {
    return String(err);
  }
  return expect.fail('the settings were accepted');
};

describe('e-mail settings', () => {
  it('are off without SMTP_URL', () => {
    expect(load({}).email).toBeUndefined();
    expect(emailStatus(load({}))).toBe('off: SMTP_URL is not set, so no order confirmations or shipping notices are sent');
  });

  it('take an smtp:// or smtps:// URL; the sender defaults to no-reply at the shop’s host', () => {
    const email = load({ SMTP_URL: 'smtps://mailer:pa%24%24@smtp.example.com', PUBLIC_BASE_URL: 'https://www.butik.dk' }).email;
    expect(email).toMatchObject({
      smtpUrl: 'smtps://mailer:pa%24%24@smtp.example.com', smtpServer: 'smtps://smtp.example.com:465', from: { name: null, address: 'no-reply@butik.dk' },
      retryScheduleMs: [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000],
    });
    expect(load({ SMTP_URL: 'smtp://smtp.example.com:2525' }).email).toMatchObject({ smtpServer: 'smtp://smtp.example.com:2525', from: { address: 'no-reply@smtp.example.com' } });
    expect(load({ SMTP_URL: 'smtp://smtp.example.com', MAIL_RETRY_SCHEDULE: '10s,1m' }).email?.retryScheduleMs).toEqual([10_000, 60_000]);
  });

  it('take MAIL_FROM as an address or as a name and address', () => {
    expect(load({ SMTP_URL: 'smtp://smtp.example.com', MAIL_FROM: 'ordre@butik.dk' }).email?.from).toEqual({ name: null, address: 'ordre@butik.dk' });
    expect(load({ SMTP_URL: 'smtp://smtp.example.com', MAIL_FROM: 'Butik & Co <ordre@butik.dk>' }).email?.from).toEqual({ name: 'Butik & Co', address: 'ordre@butik.dk' });
  });

  it('refuse a bad value naming the setting, never repeating it (it may hold the SMTP password)', () => {
    for (const SMTP_URL of ['http://mailer:hunter2@smtp.example.com', 'smtp//mailer:hunter2@smtp.example.com', 'mailer:hunter2']) {
      const message = refusal({ SMTP_URL });
      expect(message).toContain('Invalid setting SMTP_URL: expected an smtp:// or smtps:// URL');
      expect(message).not.toContain('hunter2');
    }
    expect(refusal({ SMTP_URL: 'smtp://smtp.example.com', MAIL_FROM: 'not an address' })).toContain('Invalid setting MAIL_FROM');
    expect(refusal({ MAIL_FROM: 'ordre@butik.dk' })).toContain('MAIL_FROM: only together with SMTP_URL');
    expect(refusal({ SMTP_URL: 'smtp://smtp.example.com', MAIL_RETRY_SCHEDULE: 'often' })).toContain('Invalid setting MAIL_RETRY_SCHEDULE');
  });

  it('show the SMTP server in the start-up banner, not its user or password', () => {
    const status = emailStatus(load({ SMTP_URL: 'smtp://mailer:hunter2@smtp.example.com:587', MAIL_FROM: 'ordre@butik.dk' }));
    expect(status).toBe('order e-mails sent through smtp://smtp.example.com:587 from ordre@butik.dk');
  });
});
