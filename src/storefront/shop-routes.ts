import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Config } from '../config.ts';
import { checkoutSetup } from '../services/checkout.ts';
import { openCheckoutSession } from '../services/payments.ts';
import type { Db } from '../db/client.ts';
import { AppError } from '../errors.ts';
import { baseUrlOf } from '../http/base-url.ts';
import { acceptFormBodies, formField, type FormBody } from '../http/form-body.ts';
import type { Limiter } from '../http/rate-limit.ts';
import { count } from '../http/request-guard.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { emailInput } from '../schemas/web.ts';
import { text } from '../schemas/text.ts';
import { loadChrome, type Chrome } from '../services/storefront.ts';
import {
  addToWebCart, checkOutWebCart, openWebCart, PriceChanged, setWebCartDiscount, setWebCartLine, webCartView, webOrder, type WebWrite,
} from '../services/web-cart.ts';
import { pagePath } from '../domain/public-paths.ts';
import { messagesFor, pageLanguage } from './messages.ts';
import { renderCartPage } from './pages/cart.tsx';
import { EMPTY_CHECKOUT, renderCheckoutPage, type CheckoutField, type CheckoutFields } from './pages/checkout.tsx';
import { renderOrderPage } from './pages/order.tsx';
import { CART_DISCOUNT_PATH, CART_ITEMS_PATH, CART_LINES_PATH, CART_PATH, CHECKOUT_PATH } from './paths.ts';
import { HTML_TYPE, SECURITY_HEADERS } from './respond.ts';
import { orderLink, setShopperCookie, shopperOf, shopSigner, type Shopper } from './shopper.ts';

/** Pages that show one shopper's cart, form tokens or order: never stored by a shared cache, and no Referer leaves them. */
export const PRIVATE_HEADERS = { ...SECURITY_HEADERS, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' } as const;
/** The terms of sale the checkout links to: the shop's published page with this slug (docs/storefront.md). */
export const TERMS_PAGE_SLUG = 'terms';
/** A form post is a few short fields. */
const FORM_BODY_LIMIT = 16 * 1024;

const units = z.coerce.number().int().min(0).max(99);
const CheckoutForm = z.object({
  email: emailInput(),
  shippingName: text({ min: 1, max: 200 }),
  shippingAddress: text({ min: 1, max: 500 }),
  shippingZip: text({ min: 1, max: 20 }),
  shippingCity: text({ min: 1, max: 200 }),
  phoneNumber: z.union([z.literal(''), text({ min: 3, max: 40 })]),
  terms: z.literal('accepted'),
});

export type ShopDeps = { db: Db; config: Config; secrets: SecretBox; limiter: Limiter };

export type ShopRoutes = {
  /** The request's shopper, with the cookie set on the reply when new: for pages that carry a form. */
  shopper(req: FastifyRequest, reply: FastifyReply): Promise<Shopper>;
};

/**
 * Buying without script (docs/storefront.md, "Buying on the storefront"): the cart page, its forms (add, change,
 * remove, discount code), the checkout form and the order page behind a signed link. Every POST carries the form
 * token bound to the shopper's cookie and answers with a 303 to the page that shows the result (Post/Redirect/Get),
 * or the same page again with what went wrong.
 */
const seeOther = (reply: FastifyReply, path: string) => reply.code(303).headers(PRIVATE_HEADERS).header('Location', path).send();

/**
 * Where the buyer goes once the storefront placed an order: Stripe's hosted page (opened now that the order has
 * committed), returning to the order's signed page; paid manually, or Stripe out of reach (the order stands), the
 * order page itself, which says how to pay.
 */
export async function sendToPayment(
  deps: Pick<ShopDeps, 'db' | 'config'>, req: FastifyRequest, reply: FastifyReply, placed: { order: { id: string }; payment: { provider: string } }, orderPage: string,
) {
  if (placed.payment.provider === 'stripe') {
    try {
      return await seeOther(reply, (await openCheckoutSession(deps.db, deps.config, placed.order.id, `${baseUrlOf(req, deps.config)}${orderPage}`)).url);
    } catch (err) {
      req.log.warn({ err, order: placed.order.id }, 'no Stripe Checkout Session for a storefront order');
    }
  }
  return seeOther(reply, `${orderPage}?placed=1`);
}

export function registerShopRoutes(app: FastifyInstance, deps: ShopDeps): ShopRoutes {
  const { db, config } = deps;
  const signerOf = () => shopSigner(db, deps.secrets);
  const base = (req: FastifyRequest) => baseUrlOf(req, config);

  async function shopper(req: FastifyRequest, reply: FastifyReply): Promise<Shopper> {
    const s = await signerOf();
    const found = shopperOf(req, s);
    if (found.isNew) setShopperCookie(reply, s, found, base(req).startsWith('https:'));
    return found;
  }

  const sendPrivate = (reply: FastifyReply, status: number, html: string, chrome: Chrome) =>
    reply.code(status).headers({ ...PRIVATE_HEADERS, 'Content-Language': pageLanguage(chrome.shop.language) }).type(HTML_TYPE).send(html);

  async function showCart(req: FastifyRequest, reply: FastifyReply, status: number, error: string | null) {
    const who = await shopper(req, reply);
    const [chrome, cart] = await Promise.all([loadChrome(db), webCartView(db, who.ownerId)]);
    return sendPrivate(reply, status, renderCartPage({ chrome, base: base(req), cart, csrf: who.csrf, error }), chrome);
  }

  async function showCheckout(req: FastifyRequest, reply: FastifyReply, status: number, form: { fields: CheckoutFields; invalid?: CheckoutField[]; error?: string }) {
    const who = await shopper(req, reply);
    const [chrome, cart, terms] = await Promise.all([
      loadChrome(db), webCartView(db, who.ownerId), db.page.findFirst({ where: { slug: TERMS_PAGE_SLUG, status: 'published' }, select: { slug: true } }),
    ]);
    if (!cart || cart.items.length === 0) return seeOther(reply, CART_PATH);
    const html = renderCheckoutPage({ chrome, base: base(req), cart, csrf: who.csrf, termsPath: terms ? pagePath(terms.slug) : null, ...form });
    return sendPrivate(reply, status, html, chrome);
  }

  app.get(CART_PATH, (req, reply) => showCart(req, reply, 200, null));
  app.get(CHECKOUT_PATH, (req, reply) => showCheckout(req, reply, 200, { fields: EMPTY_CHECKOUT }));

  app.get<{ Params: { id: string; signature: string }; Querystring: { placed?: string } }>('/orders/:id/:signature', async (req, reply) => {
    const s = await signerOf();
    const order = s.verify('order', req.params.id, req.params.signature) ? await webOrder(db, req.params.id) : null;
    const chrome = await loadChrome(db);
    if (!order) return reply.callNotFound();
    return sendPrivate(reply, 200, renderOrderPage({ chrome, base: base(req), order, placed: req.query.placed === '1' }), chrome);
  });

  app.register(async (scope) => {
    acceptFormBodies(scope, FORM_BODY_LIMIT);
    // Counted per address like any anonymous request; checked before anything is read or written.
    scope.addHook('preHandler', async (req) => count(req, deps.limiter));

    /** The posting shopper when the form's token belongs to their cookie; else the answer (403, the page again). */
    async function poster(req: FastifyRequest, reply: FastifyReply): Promise<{ who: WebWrite; form: FormBody } | null> {
      const s = await signerOf();
      const form: FormBody = FormSchema.safeParse(req.body).data ?? {};
      const found = shopperOf(req, s);
      if (found.isNew || !s.verify('csrf', found.ownerId, formField(form._csrf))) {
        const chrome = await loadChrome(db);
        const m = messagesFor(chrome.shop.language);
        await showCart(req, reply, 403, m.formExpired);
        return null;
      }
      return { who: { ownerId: found.ownerId, clientAddress: req.ip }, form };
    }

    /** Runs a cart change; a refusal the shopper can act on is shown on the cart page (422), anything else is thrown. */
    async function cartChange(req: FastifyRequest, reply: FastifyReply, change: (who: WebWrite, form: FormBody) => Promise<void>) {
      const posted = await poster(req, reply);
      if (!posted) return reply;
      try {
        await change(posted.who, posted.form);
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500 || err.code === 'rate_limited') throw err;
        const m = messagesFor((await loadChrome(db)).shop.language);
        const code = formField(posted.form.code) ?? '';
        const message = err.code === 'discount_unavailable' ? m.discountUnavailable(code.toUpperCase()) : err.code === 'out_of_stock' ? m.outOfStock : m.cartChanged;
        return showCart(req, reply, 422, message);
      }
      return seeOther(reply, CART_PATH);
    }

    scope.post(CART_ITEMS_PATH, (req, reply) =>
      cartChange(req, reply, async (who, form) => {
        const variantId = formField(form.variantId) ?? '';
        const quantity = units.min(1).safeParse(formField(form.quantity) ?? '1');
        await addToWebCart(db, who, variantId, quantity.success ? quantity.data : 1);
      }));

    scope.post(CART_LINES_PATH, (req, reply) =>
      cartChange(req, reply, async (who, form) => {
        const quantity = formField(form.remove) === '1' ? 0 : units.safeParse(formField(form.quantity)).data;
        if (quantity === undefined) throw new AppError('value_out_of_range', 'quantity: 0 to 99.');
        await setWebCartLine(db, who, formField(form.variantId) ?? '', quantity);
      }));

    scope.post(CART_DISCOUNT_PATH, (req, reply) =>
      cartChange(req, reply, async (who, form) => {
        const code = (formField(form.code) ?? '').trim();
        await setWebCartDiscount(db, who, formField(form.remove) === '1' || code === '' ? null : code.slice(0, 64));
      }));

    scope.post(CHECKOUT_PATH, async (req, reply) => {
      const posted = await poster(req, reply);
      if (!posted) return reply;
      const { who, form } = posted;
      const fields: CheckoutFields = {
        email: (formField(form.email) ?? '').trim(), shippingName: (formField(form.shippingName) ?? '').trim(), shippingAddress: (formField(form.shippingAddress) ?? '').trim(),
        shippingZip: (formField(form.shippingZip) ?? '').trim(), shippingCity: (formField(form.shippingCity) ?? '').trim(), phoneNumber: (formField(form.phoneNumber) ?? '').trim(),
      };
      const parsed = CheckoutForm.safeParse({ ...fields, terms: formField(form.terms) });
      if (!parsed.success) {
        const invalid = CHECKOUT_FIELDS.filter((f) => parsed.error.issues.some((i) => i.path[0] === f));
        return showCheckout(req, reply, 422, { fields, invalid });
      }
      const cart = await openWebCart(db, who.ownerId);
      if (!cart) return seeOther(reply, CART_PATH);
      const { terms: _terms, phoneNumber, ...contact } = parsed.data;
      const expectedTotal = Number(formField(form.expectedTotal));
      try {
        const placed = await checkOutWebCart(db, who, cart.id, { ...contact, ...(phoneNumber ? { phoneNumber } : {}) }, expectedTotal, checkoutSetup(config));
        const s = await signerOf();
        return await sendToPayment(deps, req, reply, placed, orderLink(s, placed.order.id));
      } catch (err) {
        if (!(err instanceof AppError || err instanceof PriceChanged) || (err instanceof AppError && (err.status >= 500 || err.code === 'rate_limited'))) throw err;
        const m = messagesFor((await loadChrome(db)).shop.language);
        if (err instanceof AppError && (err.code === 'empty_cart' || err.code === 'cart_closed')) return seeOther(reply, CART_PATH);
        if (err instanceof AppError && err.code === 'discount_unavailable') return showCart(req, reply, 422, m.discountUnavailable(cart.discountCode ?? ''));
        return showCheckout(req, reply, 422, { fields, error: err instanceof AppError && err.code === 'out_of_stock' ? m.outOfStock : m.cartChanged });
      }
    });
  });

  return { shopper };
}

const CHECKOUT_FIELDS: readonly CheckoutField[] = ['email', 'phoneNumber', 'shippingName', 'shippingAddress', 'shippingZip', 'shippingCity', 'terms'];
/** What a form post parses to (src/http/form-body.ts); any other body (JSON) is read as an empty form. */
const FormSchema = z.record(z.string(), z.union([z.string(), z.array(z.string())]));
