import { z } from 'zod';
import { cleanText } from './text.ts';

export const httpUrl = () => cleanText(z.url({ protocol: /^https?$/, hostname: z.regexes.domain }).max(2048));

export const emailInput = () => z.email().max(254);
