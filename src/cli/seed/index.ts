import type { Db } from '../../db/client.ts';
import { seedCatalog } from './catalog.ts';
import { seedCommerce } from './commerce.ts';
import { seedContent } from './content.ts';

/** The idempotent demo store of `seed --demo` (README): every seeder upserts by natural key. */
export async function seedDemo(db: Db): Promise<Record<string, number>> {
  return { ...(await seedCatalog(db)), ...(await seedContent(db)), ...(await seedCommerce(db)) };
}
