// The SECRETS_KEY of every test: test apps, and (through vitest.config.ts's env) every server and CLI process a test
// starts, so that all of them open what the others sealed. A test of its own keys passes them explicitly.
export const TEST_SECRETS_KEY = 'dGVzdC1vbmx5LXNlY3JldHMta2V5LW5vdC1mb3ItcHJvZHVjdGlvbi11c2U';
