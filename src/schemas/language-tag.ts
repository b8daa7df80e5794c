import { z } from 'zod';
import { answeredAs } from './domain-issue.ts';

/** Whether `tag` is a well-formed BCP 47 language tag (Intl's parser, not a hand-written grammar). */
function isLanguageTag(tag: string): boolean {
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}

/** A BCP 47 language tag such as `da` or `en-GB`; the grammar is not a published pattern, so a miss is 400 invalid_language_tag. */
export const languageTag = () =>
  z.string().max(35).refine(isLanguageTag, { message: 'must be a BCP 47 language tag such as da or en-GB', params: answeredAs('invalid_language_tag') });
