import { EMAIL, languageOf, type Language } from '../i18n/catalogue.ts';

// Every sentence of the buyer's e-mails comes from the service's catalogue (src/i18n/: one per language, shared
// with the storefront and the consent page; docs/email.md). Values are plain text; render.ts escapes them for HTML.

export type EmailLanguage = Language;
export type Messages = (typeof EMAIL)['en'];

export const CATALOGUES: Readonly<Record<EmailLanguage, Messages>> = EMAIL;

/** The shop's language setting (a BCP 47 tag) → its catalogue: Danish for da and its regional tags, else English. */
export const emailLanguage = languageOf;
