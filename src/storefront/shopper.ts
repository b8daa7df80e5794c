import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DbClient } from '../db/client.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { sharedServerSecret } from '../secrets/server-secret.ts';

// Who is shopping, without an account (docs/storefront.md, "Buying on the storefront"): a random owner id in a
// signed, HttpOnly, SameSite=Lax cookie. The server keeps no session; the signature (HMAC-SHA256 under the
// storefront's server secret, kept sealed in the database) proves the id was handed out by this shop. The CSRF token
// of every form is the same HMAC over the owner id for another purpose, so it is bound to the cookie: a page of
// another site can neither read it nor, since the cookie is SameSite, send the cookie with its form. Order pages are
// reached by a link signed the same way, so an order id alone shows nothing.

export const CART_COOKIE = 'shop_cart';
/**
 * Where a memoized page has its form token: random per process, so no stored text can contain it; the route
 * replaces it with the shopper's token.
 */
export const CSRF_SLOT = `csrf-${randomBytes(18).toString('base64url')}`;
/** A cart cookie lasts 30 days from the last page that set it. */
const COOKIE_MAX_AGE_S = 30 * 24 * 3600;
const OWNER_PATTERN = /^web_[A-Za-z0-9_-]{22}$/;

type Purpose = 'owner' | 'csrf' | 'order' | 'checkout_session';

/** The secret the cart cookie, the form tokens and the signed links are signed with (kept sealed in the database). */
const SECRET_NAME = 'storefront-signing';

export class ShopSigner {
  constructor(private readonly secret: string) {}

  sign(purpose: Purpose, value: string): string {
    return createHmac('sha256', this.secret).update(`${purpose}\n${value}`).digest('base64url');
  }

  verify(purpose: Purpose, value: string, mac: string | undefined): boolean {
    if (mac === undefined) return false;
    const expected = Buffer.from(this.sign(purpose, value));
    const given = Buffer.from(mac);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}

export type Shopper = {
  ownerId: string;
  /** The token every form of this shopper carries (field `_csrf`). */
  csrf: string;
  /** A new owner: the response sets the cookie. */
  isNew: boolean;
};

function cookieValue(req: FastifyRequest, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** The owner the request's cookie names, when the cookie is one this shop signed; else null. */
export function cookieOwner(req: FastifyRequest, signer: ShopSigner): string | null {
  const value = cookieValue(req, CART_COOKIE);
  if (!value) return null;
  const dot = value.indexOf('.');
  const ownerId = value.slice(0, dot);
  return dot > 0 && OWNER_PATTERN.test(ownerId) && signer.verify('owner', ownerId, value.slice(dot + 1)) ? ownerId : null;
}

/** The request's shopper; a new one (with a fresh id) when the request has no valid cookie. */
export function shopperOf(req: FastifyRequest, signer: ShopSigner): Shopper {
  const known = cookieOwner(req, signer);
  const ownerId = known ?? `web_${randomBytes(16).toString('base64url')}`;
  return { ownerId, csrf: signer.sign('csrf', ownerId), isNew: known === null };
}

/** Sets (or renews) the shopper's cookie; Secure when the shop is served over https. */
export function setShopperCookie(reply: FastifyReply, signer: ShopSigner, shopper: Shopper, secure: boolean): void {
  const value = `${shopper.ownerId}.${signer.sign('owner', shopper.ownerId)}`;
  reply.header('Set-Cookie', `${CART_COOKIE}=${value}; Path=/; Max-Age=${COOKIE_MAX_AGE_S}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`);
}

/** The signature that opens an order's page: `/orders/<id>/<signature>`. */
export const orderLink = (signer: ShopSigner, orderId: string) => `/orders/${encodeURIComponent(orderId)}/${signer.sign('order', orderId)}`;

const signers = new WeakMap<object, Promise<ShopSigner>>();

/** The shop's signer, read once per process and database (a failed read is tried again next time). */
export function shopSigner(db: DbClient, secrets: SecretBox): Promise<ShopSigner> {
  let signer = signers.get(db);
  if (!signer) {
    signer = sharedServerSecret(db, secrets, SECRET_NAME).then((s) => new ShopSigner(s));
    signer.catch(() => signers.delete(db));
    signers.set(db, signer);
  }
  return signer;
}

/**
 * The signature that opens a protocol checkout's payment page on the storefront: `/checkout/ucp/<id>/<signature>`,
 * the continue_url of a checkout the buyer finishes in person (src/storefront/protocol-checkout-routes.ts).
 */
export const checkoutSessionLink = (signer: ShopSigner, sessionId: string) =>
  `/checkout/ucp/${encodeURIComponent(sessionId)}/${signer.sign('checkout_session', sessionId)}`;
