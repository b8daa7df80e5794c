import type { Chrome } from '../services/storefront.ts';
import { formatDate, formatPrice } from './format.ts';
import { messagesFor, pageLanguage, type Messages } from './messages.ts';

/** What every component may need besides its own data: the absolute base URL and the header/footer data. */
export type View = { base: string; chrome: Chrome };

/** The language the page's text is in (its lang and Content-Language). */
export const languageOf = (view: View) => pageLanguage(view.chrome.shop.language);

/** The storefront's words in the page's language. */
export const textOf = (view: View): Messages => messagesFor(view.chrome.shop.language);

export const priceOf = (view: View, oere: string | bigint | number) => formatPrice(String(oere), view.chrome.shop.currency, languageOf(view));

export const dateOf = (view: View, at: Date | string) => formatDate(at, languageOf(view));

export const absolute = (view: View, path: string) => `${view.base}${path}`;
