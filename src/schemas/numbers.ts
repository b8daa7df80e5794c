import { z } from 'zod';

/** Every integer the API accepts is bounded by ±(2^53-1) (docs/errors.md); zod's .int() already refuses unsafe ones. */
export const MAX_INT = Number.MAX_SAFE_INTEGER;

/** An amount in øre (1/100 of the shop currency). */
export const oere = () => z.number().int().min(0).max(MAX_INT);
export const positiveOere = () => z.number().int().min(1).max(MAX_INT);

/** Page size of a list tool: 1..100 with the tool's default. */
export const limit = (dflt: number) => z.number().int().min(1).max(100).default(dflt);
