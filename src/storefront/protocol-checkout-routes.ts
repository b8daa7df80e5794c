import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import { baseUrlOf } from '../http/base-url.ts';
import { acceptFormBodies, formField, type FormBody } from '../http/form-body.ts';
import { count } from '../http/request-guard.ts';
import { checkoutSetup } from '../services/checkout.ts';
import { notReady } from '../services/checkout-sessions.ts';
import { emailInput } from '../schemas/web.ts';
import { loadChrome } from '../services/storefront.ts';
import { completeProtocolSession, PriceChanged, protocolSessionView } from '../services/web-cart.ts';
import { messagesFor, pageLanguage } from './messages.ts';
import { renderProtocolCheckoutPage } from './pages/protocol-checkout.tsx';
import { HTML_TYPE } from './respond.ts';
import { PRIVATE_HEADERS, sendToPayment, type ShopDeps } from './shop-routes.ts';
import { checkoutSessionLink, orderLink, shopSigner } from './shopper.ts';

// A shopping assistant's checkout finished by its buyer (docs/agentic-checkout.md, "Storefront payment page"): the
// continue_url of a UCP checkout no payment handler could take. The page is reached only by its signed link (HMAC
// under the storefront's secret, like order pages), which is also what makes its form safe from other sites: they
// cannot know the path to post to. The buyer pays with the shop's own provider, completing the same checkout
// session the assistant built (same stock guarantees, the order's channel stays the protocol's). No script.

type Params = { id: string; signature: string };
const PAGE = '/checkout/ucp/:id/:signature';
/** The form is one hidden field, and the buyer's e-mail when the checkout has none. */
const FORM_BODY_LIMIT = 4 * 1024;

/** What the buyer typed as e-mail, and whether it was refused. */
type TypedEmail = { value: string; invalid: boolean };

const EMAIL = emailInput();

export function registerProtocolCheckoutRoutes(app: FastifyInstance, deps: ShopDeps): void {
  const { db, config } = deps;
  const base = (req: FastifyRequest) => baseUrlOf(req, config);

  /** The page, for a link this shop signed; any other link shows the 404 page (the id alone reveals nothing). */
  async function show(req: FastifyRequest<{ Params: Params }>, reply: FastifyReply, status: number, error: string | null, typed: TypedEmail = { value: '', invalid: false }) {
    const signer = await shopSigner(db, deps.secrets);
    const { id, signature } = req.params;
    const session = signer.verify('checkout_session', id, signature) ? await protocolSessionView(db, id, base(req)) : null;
    if (!session) return reply.callNotFound();
    const chrome = await loadChrome(db);
    const html = renderProtocolCheckoutPage({
      chrome, base: base(req), session, blocked: notReady(session) !== null, email: session.buyer?.email ? undefined : typed,
      action: checkoutSessionLink(signer, id), provider: config.payments.provider, error,
      orderPath: session.orderId ? orderLink(signer, session.orderId) : null,
    });
    return reply.code(status).headers({ ...PRIVATE_HEADERS, 'Content-Language': pageLanguage(chrome.shop.language) }).type(HTML_TYPE).send(html);
  }

  app.get<{ Params: Params }>(PAGE, (req, reply) => show(req, reply, 200, null));

  app.register(async (scope) => {
    acceptFormBodies(scope, FORM_BODY_LIMIT);
    scope.addHook('preHandler', async (req) => count(req, deps.limiter));

    scope.post<{ Params: Params; Body: FormBody }>(PAGE, async (req, reply) => {
      const signer = await shopSigner(db, deps.secrets);
      const { id, signature } = req.params;
      if (!signer.verify('checkout_session', id, signature)) return reply.callNotFound();
      const expectedTotal = Number(formField(req.body?.expectedTotal));
      // Sent only when the checkout came without the buyer's e-mail; a checkout that has one keeps it.
      const email = formField(req.body?.email)?.trim();
      if (email !== undefined && !EMAIL.safeParse(email).success) return show(req, reply, 422, null, { value: email, invalid: true });
      try {
        const placed = await completeProtocolSession(db, { ownerId: id, clientAddress: req.ip }, id, base(req), expectedTotal, checkoutSetup(config), email);
        return await sendToPayment(deps, req, reply, placed, orderLink(signer, placed.order.id));
      } catch (err) {
        // What the buyer can act on is shown on the page again (422); the rest is the service's failure.
        if (err instanceof AppError && err.code === 'not_found') return reply.callNotFound();
        if (!(err instanceof PriceChanged || (err instanceof AppError && err.status < 500 && err.code !== 'rate_limited'))) throw err;
        // Not ready: what it lacks is shown (the e-mail field marked, or the page's notice when the platform's part is missing).
        if (err instanceof AppError && err.code === 'checkout_session_incomplete') return show(req, reply, 422, null, { value: email ?? '', invalid: true });
        const m = messagesFor((await loadChrome(db)).shop.language);
        return show(req, reply, 422, err instanceof AppError && err.code === 'out_of_stock' ? m.outOfStock : err instanceof AppError && err.code === 'checkout_session_closed' ? m.sessionClosed : m.cartChanged);
      }
    });
  });
}
