import { languageOf, STOREFRONT, textLanguage } from '../i18n/catalogue.ts';

// The storefront's words come from the service's catalogue (src/i18n/), chosen by the shop's language setting
// (docs/storefront.md, "Language").

export type Messages = (typeof STOREFRONT)['en'];

/** The language a page is written in for a shop language: the shop's own tag when there is a catalogue for it, else English. */
export const pageLanguage = textLanguage;

/** The storefront's words for a shop language (English when there is no catalogue for it). */
export const messagesFor = (shopLanguage: string): Messages => STOREFRONT[languageOf(shopLanguage)];
