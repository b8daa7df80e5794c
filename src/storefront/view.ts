import type { Chrome } from '../services/storefront.ts';
import { formatPrice } from './format.ts';

/** What every component may need besides its own data: the absolute base URL and the header/footer data. */
export type View = { base: string; chrome: Chrome };

export const priceOf = (view: View, oere: string) => formatPrice(oere, view.chrome.shop.currency, view.chrome.shop.language);

export const absolute = (view: View, path: string) => `${view.base}${path}`;
