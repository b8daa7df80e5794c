import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { AppError } from '../errors.ts';
import { verifiedStripeEvent } from '../services/payments.ts';
import { applyStripeEvent } from '../services/stripe-events.ts';
import { PATHS } from './paths.ts';
import type { Limiters } from './rate-limit.ts';
import { count } from './request-guard.ts';

/** Stripe's events are a few KiB; a Checkout Session with many line items stays well below this. */
const STRIPE_EVENT_BODY_LIMIT = 256 * 1024;

/**
 * POST /api/payments/stripe/webhook (docs/payments.md). Outside the API-key guard: Stripe proves itself with
 * Stripe-Signature over the exact bytes it sent, so the body is kept raw. Counted per client address. A verified
 * event is answered 200 whatever it did (an illegal transition is logged, not refused, or Stripe would retry it for
 * days); a bad signature 401 with nothing changed; a failure of ours 5xx, which Stripe retries.
 */
export function registerStripeWebhook(app: FastifyInstance, deps: { db: Db; config: Config; limiters: Limiters }): void {
  if (!deps.config.payments.stripe) return;
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: STRIPE_EVENT_BODY_LIMIT }, (_req, body, done) => done(null, body));
    scope.post(PATHS.stripeWebhook, {
      bodyLimit: STRIPE_EVENT_BODY_LIMIT,
      onRequest: async (req) => {
        req.principal = null;
        await count(req, deps.limiters.stripeWebhook);
      },
    }, async (req, reply) => {
      if (!Buffer.isBuffer(req.body)) throw new AppError('invalid_body', 'Send the event Stripe signed as the body.');
      const event = verifiedStripeEvent(deps.config, req.body, req.headers['stripe-signature']);
      const outcome = await applyStripeEvent(deps.db, deps.config, event, req.log);
      req.log.info({ stripeEvent: event.id, type: event.type, outcome }, 'Stripe event');
      return reply.send({ received: true, outcome });
    });
  });
}
