// Payment handlers a UCP checkout can be paid through (docs/agentic-checkout.md, "Payment"). A completion names
// its instrument's handler_id; the handler decides there and then. Without a handler that fits, the checkout goes to
// requires_escalation and the buyer finishes on the storefront's payment page (continue_url).
import type { Config } from '../../config.ts';
import { AppError } from '../../errors.ts';
import { UCP_VERSION, type HandlerRegistry, type PaymentInstrument } from './wire.ts';

/**
 * The test handler: in this service's own namespace, offered only outside production. It decides by the token of
 * the instrument's credential, as the UCP conformance suite's mock handler does: success_token pays, fail_token is
 * declined (402), fraud_token is refused as fraud (403); any other token is declined.
 */
export const TEST_HANDLER = { name: 'dev.agent_api.test_payment', id: 'mock_payment_handler' } as const;

/** The handlers this service offers now, as `ucp.payment_handlers` lists them. */
export function paymentHandlers(config: Config): HandlerRegistry {
  if (!config.checkout.testPaymentHandler) return {};
  return {
    [TEST_HANDLER.name]: [{
      id: TEST_HANDLER.id,
      version: UCP_VERSION,
      config: { tokens: { success: 'success_token', declined: 'fail_token', fraud: 'fraud_token' } },
    }],
  };
}

export type PaymentDecision = { paid: true; handler: string; reference: string } | { paid: false; escalate: true };

/** Decides the instrument's payment, or says the buyer must be escalated (no instrument, or no handler of ours). */
export function decidePayment(config: Config, instrument: PaymentInstrument | null): PaymentDecision {
  const handler = instrument && Object.values(paymentHandlers(config)).flat().find((h) => h.id === instrument.handler_id);
  if (!instrument || !handler) return { paid: false, escalate: true };
  const token = instrument.credential?.token;
  if (token === 'success_token') return { paid: true, handler: TEST_HANDLER.name, reference: `test_${instrument.id}` };
  if (token === 'fraud_token') throw new AppError('payment_rejected', 'The payment was refused as fraudulent.');
  throw new AppError('payment_declined', token === 'fail_token' ? 'The payment was declined: insufficient funds.' : 'The payment was declined: unknown payment token.');
}
