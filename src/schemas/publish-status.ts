import { z } from 'zod';

/** Status of pages and service offerings: drafts never appear on the public site. */
export const PublishStatus = z.enum(['draft', 'published']);
