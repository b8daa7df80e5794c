// What the agentic checkout protocols share once an agent's Stripe SharedPaymentToken pays a checkout session
// (docs/agentic-checkout.md, ACP "Payment" and UCP "Payment"): the order records the PaymentIntent, a completion that
// fails after the payment gives it back unless a retry can still use it, and the order is placed paid (placeOrderOf).
// The charge itself is chargeSharedToken (services/payments.ts); ACP and UCP call these same functions around it.
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { PaymentProvider } from '../domain/payment.ts';
import { AppError } from '../errors.ts';
import { refundSharedTokenCharge } from './payments.ts';

/** The order records the PaymentIntent an agent's token paid (method card). */
export const paidByToken = (intentId: string): PaymentProvider => ({
  name: 'stripe',
  start: ({ orderId }) => ({ paymentMethod: 'card', externalId: intentId, instructions: `Order ${orderId} was paid with the agent's payment token.`, paid: true }),
});

/**
 * Whether a completion that failed after the payment keeps it: while the same request still runs (it may place the
 * order), or when the failure is the service's own (5xx), since the retry with the same key gets the same
 * PaymentIntent from Stripe and completes. Any other failure (stock taken meanwhile, the total changed) gives it back.
 */
const keepsPayment = (err: unknown) => !(err instanceof AppError) || err.code === 'idempotency_in_progress' || err.status >= 500;

/** Gives the payment back after a failed completion unless a retry can still use it (best effort: a failure is logged). */
export async function refundUnlessRetried(config: Config, intentId: string, err: unknown, log: Pick<FastifyBaseLogger, 'warn'>): Promise<void> {
  if (keepsPayment(err)) return;
  await refundSharedTokenCharge(config, intentId).catch((e: unknown) => log.warn({ err: e, intent: intentId }, 'refund of an agent payment failed'));
}
