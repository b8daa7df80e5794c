import { z } from 'zod';

/** Whether `tag` is a well-formed BCP 47 language tag (Intl's parser, not a hand-written grammar). */
function isLanguageTag(tag: string): boolean {
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}

/** A BCP 47 language tag such as `da` or `en-GB`. */
export const languageTag = () => z.string().max(35).refine(isLanguageTag, 'must be a BCP 47 language tag such as da or en-GB');
