import { da } from './da.ts';
import { en } from './en.ts';

// One catalogue per language of every word the service shows people: the storefront's pages, the buyer's e-mails
// and the OAuth consent page (docs/storefront.md, "Language"). The shop's `language` setting (BCP 47) picks it by
// its primary subtag; a language without a catalogue gets English. Each surface reads its own section together with
// the words they share (`shared`), so no string is written twice.

export type Catalogue = typeof en;
export type Language = 'da' | 'en';

const CATALOGUES: Readonly<Record<Language, Catalogue>> = { da, en };

/** The catalogue's language for a shop language setting: da, da-DK … → Danish; anything else → English. */
export function languageOf(tag: string): Language {
  const primary = tag.split('-')[0]!.toLowerCase();
  return primary === 'da' || primary === 'en' ? primary : 'en';
}

/**
 * The tag a page or message names as its language (`<html lang>`, `Content-Language`): the shop's own tag when there
 * is a catalogue for its language (so da-DK stays da-DK), else `en`, the language the text is then in.
 */
export function textLanguage(tag: string): string {
  const primary = tag.split('-')[0]!.toLowerCase();
  return primary === languageOf(tag) ? tag : 'en';
}

/** A surface's words with the shared ones, per language, built once. */
function sections<K extends Exclude<keyof Catalogue, 'shared'>>(key: K): Readonly<Record<Language, Catalogue['shared'] & Catalogue[K]>> {
  return { da: { ...da.shared, ...da[key] }, en: { ...en.shared, ...en[key] } };
}

export const STOREFRONT = sections('storefront');
export const EMAIL = sections('email');
export const CONSENT = sections('consent');
