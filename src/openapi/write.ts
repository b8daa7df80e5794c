// `npm run openapi`: regenerates the committed openapi/openapi.json from the registry, and openapi/checkout.json.
// test/openapi/openapi.test.ts fails while the committed copy differs from buildDocument(TOOLS).
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TOOLS } from '../tools/index.ts';
import { buildDocument } from './build-document.ts';
import { buildCheckoutDocument } from './checkout-protocols.ts';

export const OPENAPI_FILE = resolve(dirname(fileURLToPath(import.meta.url)), '../../openapi/openapi.json');
/** The checkout protocols' document (src/openapi/checkout-protocols.ts), served at /openapi/checkout.json. */
export const CHECKOUT_OPENAPI_FILE = resolve(dirname(OPENAPI_FILE), 'checkout.json');

/** The exact bytes of the committed file (pretty-printed, trailing newline), so the test compares like with like. */
export function serializeDocument(doc: unknown): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await mkdir(dirname(OPENAPI_FILE), { recursive: true });
  await writeFile(OPENAPI_FILE, serializeDocument(buildDocument(TOOLS)));
  await writeFile(CHECKOUT_OPENAPI_FILE, serializeDocument(buildCheckoutDocument()));
  console.log(`wrote ${OPENAPI_FILE} (${TOOLS.length} tools) and ${CHECKOUT_OPENAPI_FILE}`);
}
