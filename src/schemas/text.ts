import { z } from 'zod';

const CLEAN_TEXT = 'must not contain NUL bytes or unpaired surrogates';
const isClean = (s: string) => !s.includes('\u0000') && s.isWellFormed();

/**
 * The same rule as a JSON Schema pattern (validators run patterns in unicode mode, where a lone surrogate is a
 * character of its own and a pair is one astral character), published with every text field.
 */
export const CLEAN_TEXT_PATTERN = String.raw`^[^\u0000\ud800-\udfff]*$`;

/** Refuses what PostgreSQL cannot store or a client cannot render: NUL bytes and lone surrogates. */
export const cleanText = <S extends z.ZodType<string>>(schema: S) => schema.refine(isClean, CLEAN_TEXT).meta({ pattern: CLEAN_TEXT_PATTERN });

/** A string PostgreSQL can store and a client can render: no NUL, no lone surrogates, bounded length. */
export const text = (opts: { min?: number; max: number }) => cleanText(z.string().min(opts.min ?? 0).max(opts.max));

export const SLUG_PATTERN = /^[a-z0-9-]+$/;
export const slug = () => z.string().min(2).max(120).regex(SLUG_PATTERN, 'must be lowercase letters, digits and hyphens');
/** Lookup by slug: any non-empty string (an unknown one is a 404, not a 400). */
export const slugRef = () => text({ min: 1, max: 200 });

export const stringMap = () => z.record(text({ min: 1, max: 200 }), text({ max: 2000 }));
