// Payment handlers a UCP checkout can be paid through (docs/agentic-checkout.md, "Payment"). A completion names
// its instrument's handler_id; the handler decides there and then. Without a handler that fits, the checkout goes to
// requires_escalation and the buyer finishes on the storefront's payment page (continue_url); a Stripe payment whose
// bank asks for 3-D Secure goes there too, with the bank's page as continue_url.
import { createHash } from 'node:crypto';
import type { Config } from '../../config.ts';
import type { PendingPayment } from '../../domain/checkout-session.ts';
import { manualPaymentProvider, type PaymentProvider } from '../../domain/payment.ts';
import { AppError } from '../../errors.ts';
import type { WriteContext } from '../../registry/define-tool.ts';
import { paidByToken, refundUnlessRetried } from '../../services/agent-payments.ts';
import { findPriced, notReady, viewSession, type SessionOwner, type SessionView } from '../../services/checkout-sessions.ts';
import { chargeSharedToken, isSharedPaymentToken, sharedTokenChargeNow } from '../../services/payments.ts';
import { checkoutSessionLink, shopSigner } from '../../storefront/shopper.ts';
import { UCP_VERSION, type HandlerRegistry, type PaymentInstrument } from './wire.ts';

/**
 * The test handler: in this service's own namespace, offered only outside production. It decides by the token of
 * the instrument's credential, as the UCP conformance suite's mock handler does: success_token pays, fail_token is
 * declined (402), fraud_token is refused as fraud (403); any other token is declined.
 */
export const TEST_HANDLER = { name: 'dev.agent_api.test_payment', id: 'mock_payment_handler' } as const;

/**
 * The Stripe handler, offered when Stripe is configured: the instrument's credential is a Stripe SharedPaymentToken
 * (`type` "spt", token `spt_…`) the platform was granted for this shop, charged as one PaymentIntent of the
 * checkout's total. UCP 2026-04-08 defines no Stripe handler, so it is declared in this service's own namespace
 * (docs/agentic-checkout.md, "Readings").
 */
export const STRIPE_HANDLER = { name: 'dev.agent_api.stripe', id: 'stripe' } as const;

/** The handlers this service offers now, as `ucp.payment_handlers` lists them. */
export function paymentHandlers(config: Config): HandlerRegistry {
  const stripe = config.payments.stripe;
  return {
    ...(config.checkout.testPaymentHandler ? {
      [TEST_HANDLER.name]: [{
        id: TEST_HANDLER.id,
        version: UCP_VERSION,
        config: { tokens: { success: 'success_token', declined: 'fail_token', fraud: 'fraud_token' } },
      }],
    } : {}),
    ...(stripe ? {
      [STRIPE_HANDLER.name]: [{
        id: STRIPE_HANDLER.id,
        version: UCP_VERSION,
        config: { psp: 'stripe', environment: /^[sr]k_live_/.test(stripe.secretKey) ? 'production' : 'sandbox', credential_types: ['spt'] },
      }],
    } : {}),
  };
}

/** How a completion is paid: the order's payment record (and what was charged, to check the total), or the buyer. */
export type Payment =
  | { paid: true; provider: PaymentProvider; charged: { intentId: string; amount: number } | null; instrument: PaymentInstrument; handler: string; reference: string }
  | { paid: false; pending: PendingPayment | null; reason: string };

const escalation = (reason: string, pending: PendingPayment | null = null): Payment => ({ paid: false, pending, reason });

/** The test handler's decision by token (a refusal throws: 402, or 403 for fraud; it changes nothing). */
function testPayment(instrument: PaymentInstrument): Payment {
  const token = instrument.credential?.token;
  if (token === 'success_token') {
    return { paid: true, provider: manualPaymentProvider, charged: null, instrument, handler: TEST_HANDLER.name, reference: `test_${instrument.id}` };
  }
  if (token === 'fraud_token') throw new AppError('payment_rejected', 'The payment was refused as fraudulent.');
  throw new AppError('payment_declined', token === 'fail_token' ? 'The payment was declined: insufficient funds.' : 'The payment was declined: unknown payment token.');
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

/**
 * Pays the session with the instrument, before the completion locks anything: the test handler decides by token;
 * the Stripe handler charges the token (the session checked first, so what the completion would refuse is answered
 * before anything is charged), or finds the PaymentIntent that waited for the buyer's 3-D Secure when the same token
 * is sent again. A payment taken is given back if the completion then fails (ctx.afterFailure). A dry run charges
 * nothing. `requestKey` is the platform's Idempotency-Key: a retry of the same request gets the same PaymentIntent.
 */
export async function takePayment(ctx: WriteContext, owner: SessionOwner, id: string, instrument: PaymentInstrument | null, base: string, requestKey: string): Promise<Payment> {
  const handler = instrument && Object.values(paymentHandlers(ctx.config)).flat().find((h) => h.id === instrument.handler_id);
  if (!instrument || !handler) return escalation('no payment handler of this service fits the instrument');
  if (handler.id === TEST_HANDLER.id) return testPayment(instrument);

  const token = instrument.credential?.token;
  if (instrument.credential?.type !== 'spt' || !isSharedPaymentToken(token)) {
    throw new AppError('payment_declined', 'The payment was declined: the Stripe handler takes a Stripe SharedPaymentToken (credential type "spt", token spt_…).');
  }
  const { row, pricing } = await findPriced(ctx.db, owner, id, 'ucp');
  const view = await viewSession(ctx.db, row, base, new Date(), pricing);
  if (view.status === 'completed' || view.status === 'canceled') throw new AppError('checkout_session_closed', `Checkout session "${id}" is ${view.status} and cannot change.`);
  const problem = notReady(view);
  if (problem) throw problem;
  const paid = (intentId: string, amount: number): Payment => {
    ctx.afterFailure((err) => refundUnlessRetried(ctx.config, intentId, err, ctx.log));
    return { paid: true, provider: paidByToken(intentId), charged: { intentId, amount }, instrument, handler: STRIPE_HANDLER.name, reference: intentId };
  };
  if (ctx.dryRun) return { paid: true, provider: paidByToken('pi_dry_run'), charged: null, instrument, handler: STRIPE_HANDLER.name, reference: 'dry run: nothing charged' };

  const tokenHash = sha256(token);
  const pending = view.pendingPayment?.tokenHash === tokenHash ? view.pendingPayment : null;
  const amount = pending?.amount ?? view.totals.total;
  const charge = pending
    ? await sharedTokenChargeNow(ctx.config, pending.intentId)
    : await chargeSharedToken(ctx.config, {
      amount, currency: view.currency, token, idempotencyKey: `${owner.keyId}:ucp:${requestKey}`,
      metadata: { checkout_session_id: id, protocol: 'ucp' },
      // Where the bank sends the buyer back after 3-D Secure: the session's page, which then says to go back to the agent.
      returnUrl: `${base}${checkoutSessionLink(await shopSigner(ctx.db, ctx.secrets), id)}`,
    });
  if (charge.paid) return paid(charge.intentId, amount);
  if (charge.action) return escalation('the buyer’s bank asks for 3-D Secure', { provider: 'stripe', intentId: charge.action.intentId, url: charge.action.url, tokenHash, amount });
  throw new AppError(charge.fraud ? 'payment_rejected' : 'payment_declined', charge.message);
}

/** Where the buyer continues a checkout: the bank's page of a payment waiting for 3-D Secure, else the shop's payment page. */
export async function continueUrlOf(ctx: Pick<WriteContext, 'db' | 'secrets'>, base: string, view: Pick<SessionView, 'id' | 'pendingPayment'>): Promise<string> {
  return view.pendingPayment?.url ?? `${base}${checkoutSessionLink(await shopSigner(ctx.db, ctx.secrets), view.id)}`;
}

/** The instrument that paid, as the completed checkout shows it: without its credential (the schema omits it in responses). */
export const paidInstrument = (i: PaymentInstrument) => {
  const { credential: _credential, ...shown } = i;
  return { ...shown, selected: true };
};
