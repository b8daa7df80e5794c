// The rules of a checkout session that do not need the database (docs/agentic-checkout.md): its lifetime, when it
// may still change, and which status its contents give it.

/** A session expires this long after it was created unless the protocol asks for less (the protocols' default). */
export const SESSION_TTL_MS = 6 * 60 * 60 * 1000;

export const SESSION_STATUSES = ['incomplete', 'requires_escalation', 'ready_for_complete', 'complete_in_progress', 'completed', 'canceled'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export type SessionProtocol = 'ucp' | 'acp';

/** A line as the session keeps it: the protocol's line id, the variant it buys and how many. */
export type SessionLine = { id: string; variantId: string; quantity: number };

export type SessionAddress = {
  firstName?: string; lastName?: string; streetAddress?: string; extendedAddress?: string; locality?: string; region?: string;
  postalCode?: string; country?: string; phone?: string;
};

/** The buyer's consent to data processing (UCP's buyer_consent), kept as given and shown back to the platform. */
export type SessionConsent = { analytics?: boolean; preferences?: boolean; marketing?: boolean; saleOfData?: boolean };

export type SessionBuyer = { email?: string; firstName?: string; lastName?: string; phone?: string; consent?: SessionConsent };

/**
 * Where and how the goods go: the destination the platform named (its own id for it), and the option chosen among
 * those the session offers (null: not chosen yet).
 */
export type SessionFulfillment = {
  destinationId: string | null; address: SessionAddress | null; optionId: string | null;
  /** The chosen option's title as it was when the session was completed (the order's delivery description). */
  optionTitle?: string;
};

/** Something the buyer or the platform must know or fix, tied to the part of the session it is about. */
export type SessionIssue = {
  type: 'error' | 'warning';
  code: string;
  /** Where in the session: `lines[<index>]`, `buyer.email`, `fulfillment`, `discounts.codes[<index>]`. */
  path: string;
  content: string;
  severity: 'recoverable' | 'requires_buyer_input' | 'unrecoverable';
};

/**
 * A payment that waits for the buyer: a Stripe PaymentIntent whose bank asked for authentication (3-D Secure) at
 * `url`, for `amount` øre. The completion sent again with the same token (known by its SHA-256, never kept itself)
 * looks it up.
 */
export type PendingPayment = { provider: 'stripe'; intentId: string; url: string; tokenHash: string; amount: number };

/** Where the escalation's message points: what the buyer does at continue_url is no gap of the session's contents. */
export const ESCALATION_PATH = 'payment';

/**
 * Why a session in requires_escalation waits for the buyer (UCP: such a checkout carries at least one message that
 * requires the buyer): the bank's authentication of a payment, or a payment no handler could take.
 */
export function escalationIssue(pending: PendingPayment | null): SessionIssue {
  return pending
    ? { type: 'error', code: 'requires_3ds', path: ESCALATION_PATH, content: 'The buyer’s bank asks the buyer to confirm the payment (3-D Secure) at continue_url; then complete the checkout again.', severity: 'requires_buyer_input' }
    : { type: 'error', code: 'payment_required', path: ESCALATION_PATH, content: 'No payment handler of this shop could take the payment: the buyer pays on the shop’s page at continue_url.', severity: 'requires_buyer_input' };
}

/** A session that was completed or canceled, or has expired, changes no more. */
export const isFinal = (status: string) => status === 'completed' || status === 'canceled';

export const isExpired = (expiresAt: Date, now: Date) => expiresAt.getTime() <= now.getTime();

/** The expiry of a session created now: the default TTL, or sooner when the platform asks for it. */
export function expiryOf(now: Date, requested?: Date): Date {
  const latest = new Date(now.getTime() + SESSION_TTL_MS);
  return requested && requested < latest && requested > now ? requested : latest;
}

/** The address fields an order needs before it can be shipped. */
export const ADDRESS_REQUIRED = ['streetAddress', 'locality', 'postalCode', 'country'] as const;

/** How an address field is named to a person. */
export const ADDRESS_LABELS: Record<(typeof ADDRESS_REQUIRED)[number], string> = {
  streetAddress: 'street address', locality: 'city', postalCode: 'postal code', country: 'country',
};

export function missingAddressFields(address: SessionAddress | null): Array<(typeof ADDRESS_REQUIRED)[number]> {
  if (!address) return [...ADDRESS_REQUIRED];
  return ADDRESS_REQUIRED.filter((f) => !address[f]?.trim());
}

/**
 * An open session's status from what it lacks: errors leave it `incomplete`; without errors it is
 * `ready_for_complete`. `requires_escalation` is set only by a completion no payment handler could take.
 */
export function openStatus(issues: readonly SessionIssue[], stored: string): SessionStatus {
  if (issues.some((i) => i.type === 'error')) return 'incomplete';
  return stored === 'requires_escalation' ? 'requires_escalation' : 'ready_for_complete';
}
