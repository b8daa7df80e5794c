// The fake Stripe API of the tests (test/fakes/stripe-server.ts) as a process of its own for the bench's Stripe
// checkout case: in the bench's process its answers would wait behind autocannon's work on the same event loop.
// Prints one JSON line {url, secretKey, webhookSecret} once listening; stops on SIGTERM.
import { startFakeStripe } from '../test/fakes/stripe-server.ts';

const fake = await startFakeStripe({ record: false });
process.stdout.write(`${JSON.stringify({ url: fake.url, secretKey: fake.secretKey, webhookSecret: fake.webhookSecret })}\n`);
process.on('SIGTERM', () => void fake.close().then(() => process.exit(0)));
