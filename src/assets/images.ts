import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The images that ship with the service (assets/images/: the demo's product, page and service pictures, drawn by
// scripts/draw-demo-images.ts, CC0). Each is served at a path with a hash of its bytes, /assets/images/<name>.<hash>.svg,
// cached for a year as immutable: a changed picture is a new path. Read once, on first use (about 100 KB): the
// storefront serves them, the demo seed names them, and the image fields of products, variants, services and layouts
// accept exactly these paths besides https URLs (src/domain/image-url.ts, src/schemas/web.ts).

/** From src/assets/ and from the bundles at .build/src/ and .build/cli/ alike (scripts/build.mjs keeps the depth). */
const DIRECTORY = fileURLToPath(new URL('../../assets/images/', import.meta.url));
export const IMAGE_ASSETS_PREFIX = '/assets/images/';

type Asset = { path: string; body: Buffer; contentType: string };

const TYPES: Record<string, string> = { svg: 'image/svg+xml' };

function load(): { byName: Map<string, Asset>; byPath: Map<string, Asset> } {
  const byName = new Map<string, Asset>();
  const byPath = new Map<string, Asset>();
  let files: string[] = [];
  try {
    files = readdirSync(DIRECTORY);
  } catch {
    // A checkout without the pictures still serves the shop: products then show the placeholder.
  }
  for (const file of files) {
    const dot = file.lastIndexOf('.');
    const contentType = TYPES[file.slice(dot + 1)];
    if (!contentType) continue;
    const body = readFileSync(`${DIRECTORY}${file}`);
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
    const asset = { path: `${IMAGE_ASSETS_PREFIX}${file.slice(0, dot)}.${hash}${file.slice(dot)}`, body, contentType };
    byName.set(file, asset);
    byPath.set(asset.path, asset);
  }
  return { byName, byPath };
}

let loaded: ReturnType<typeof load> | null = null;
const assets = () => (loaded ??= load());

/** The fingerprinted site path of a bundled image, e.g. bundledImagePath('havblik-aviator-1.svg'). */
export function bundledImagePath(file: string): string {
  const asset = assets().byName.get(file);
  if (!asset) throw new Error(`No bundled image ${file} in assets/images/.`);
  return asset.path;
}

/** The bundled image at a site path, or null. */
export const bundledImage = (path: string): Asset | null => assets().byPath.get(path) ?? null;

/** A site path of a bundled image (what product images and layouts may name besides https URLs). */
export const isBundledImagePath = (url: string) => url.startsWith(IMAGE_ASSETS_PREFIX) && bundledImage(url) !== null;
