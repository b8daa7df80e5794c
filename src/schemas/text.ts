import { z } from 'zod';
import { answeredAs } from './domain-issue.ts';

const CLEAN_TEXT = 'must not contain NUL bytes or unpaired surrogates';
const isClean = (s: string) => !s.includes('\u0000') && s.isWellFormed();

/**
 * Refuses what PostgreSQL cannot store or a client cannot render: NUL bytes and lone surrogates. Answered with the
 * domain error 400 invalid_text rather than published as a pattern on every text field, which would add about
 * 3,000 tokens to an agent's tool list to say what almost no caller needs to hear (docs/contract.md).
 */
export const cleanText = <S extends z.ZodType<string>>(schema: S) => schema.refine(isClean, { message: CLEAN_TEXT, params: answeredAs('invalid_text') });

/** A string PostgreSQL can store and a client can render: no NUL, no lone surrogates, bounded length. */
export const text = (opts: { min?: number; max: number }) => cleanText(z.string().min(opts.min ?? 0).max(opts.max));

export const SLUG_PATTERN = /^[a-z0-9-]+$/;
export const slug = () => z.string().min(2).max(120).regex(SLUG_PATTERN, 'must be lowercase letters, digits and hyphens');
/** Lookup by slug: any non-empty string (an unknown one is a 404, not a 400). */
export const slugRef = () => text({ min: 1, max: 200 });

/**
 * The key of a JSON object that maps names to values. A "__proto__" key is refused before any schema runs (the JSON
 * parser answers 400 invalid_json, docs/errors.md), so the published key schema excludes it too.
 */
export const mapKey = (max: number) => text({ min: 1, max }).refine((k) => k !== '__proto__', 'must not be "__proto__"').meta({ not: { const: '__proto__' } });

/** A map of short names to texts. */
export const stringMap = () => z.record(mapKey(200), text({ max: 2000 }));
