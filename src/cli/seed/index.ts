import type { Db } from '../../db/client.ts';
import { loadSettings } from '../../services/settings.ts';
import { seedCatalog } from './catalog.ts';
import { seedCommerce } from './commerce.ts';
import { seedContent } from './content.ts';

/**
 * The demo's texts (products, pages, services) are written in English, so its shop is set to English too: the
 * storefront's own words, its prices and dates, the e-mails and the consent page then match what the shop wrote
 * (docs/storefront.md, "Language"). `settings.update` changes it back.
 */
export const DEMO_LANGUAGE = 'en';

/** The idempotent demo store of `seed --demo` (README): every seeder upserts by natural key. */
export async function seedDemo(db: Db): Promise<Record<string, number>> {
  await loadSettings(db);
  await db.shopSettings.updateMany({ data: { language: DEMO_LANGUAGE } });
  return { ...(await seedCatalog(db)), ...(await seedContent(db)), ...(await seedCommerce(db)) };
}
