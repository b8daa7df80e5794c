import { z } from 'zod';
import { isCountryCode } from '../domain/countries.ts';
import { answeredAs } from './domain-issue.ts';

/**
 * An ISO 3166-1 alpha-2 country code in upper case. The schema publishes the pattern, not the 249 codes (about
 * 1,500 tokens in every tool list); a code of that shape that is not assigned is 400 invalid_country_code.
 */
export const countryCode = () =>
  z
    .string()
    .regex(/^[A-Z]{2}$/, 'must be two upper-case letters (ISO 3166-1 alpha-2), such as DK')
    .refine(isCountryCode, { message: 'must be an assigned ISO 3166-1 alpha-2 code, such as DK or US', params: answeredAs('invalid_country_code') });
