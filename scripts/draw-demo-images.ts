// Draws the demo shop's pictures as small SVG files into assets/images/ (CC0 1.0, our own work: see
// assets/images/LICENSE.md): two per demo product (front view on a pale ground; at an angle on a tinted one), the
// home and about heroes and the eye-exam service picture. Deterministic: re-running writes the same bytes.
// Usage: node --import tsx scripts/draw-demo-images.ts
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEMO_PRODUCT_ROWS, type DemoArt, type DemoColour, type DemoLens } from '../src/cli/seed/catalog.ts';

const OUT = fileURLToPath(new URL('../assets/images/', import.meta.url));

const FRAME: Record<DemoColour, string> = { black: '#222', gold: '#c49a3f', tortoise: '#7a4a22', red: '#b3262e', navy: '#1f3a6b', white: '#eee' };
const LENS: Record<DemoLens, string> = { grey: '#4a4f55', green: '#3d5a3a', brown: '#6b4a2b', blue: '#2d6da3', mirror: 'url(#m)', clear: '#d6e6f0' };
const GROUND = ['#f4efe6', '#e8eef4', '#eef2ea', '#f6ebe9', '#ecebf4', '#f1f1ee'];

/** The two lens outlines of a frame style, left lens centred on x=270, right on x=530, y=400. */
function lensPaths(art: DemoArt): string[] {
  const both = (d: (cx: number, s: number) => string) => [d(270, -1), d(530, 1)];
  switch (art) {
    case 'aviator': return both((cx, s) => `M${cx - 110 * s} 330 Q${cx} 300 ${cx + 110 * s} 330 Q${cx + 115 * s} 470 ${cx + 10 * s} 500 Q${cx - 100 * s} 480 ${cx - 110 * s} 330Z`);
    case 'wayfarer': return both((cx, s) => `M${cx - 115 * s} 320 L${cx + 115 * s} 330 Q${cx + 110 * s} 460 ${cx + 70 * s} 470 L${cx - 80 * s} 470 Q${cx - 110 * s} 460 ${cx - 115 * s} 320Z`);
    case 'round': return both((cx) => `M${cx - 100} 400 a100 100 0 1 0 200 0 a100 100 0 1 0 -200 0Z`);
    case 'cateye': return both((cx, s) => `M${cx - 100 * s} 350 Q${cx} 320 ${cx + 125 * s} 300 Q${cx + 110 * s} 460 ${cx + 20 * s} 470 Q${cx - 95 * s} 465 ${cx - 100 * s} 350Z`);
    case 'square': return both((cx) => `M${cx - 105} 315 h210 v165 h-210Z`);
    case 'browline': return both((cx) => `M${cx - 105} 340 Q${cx} 320 ${cx + 105} 340 Q${cx + 100} 480 ${cx} 480 Q${cx - 100} 480 ${cx - 105} 340Z`);
    case 'shield': return ['M150 330 Q400 290 650 330 Q660 440 560 470 Q470 480 400 420 Q330 480 240 470 Q140 440 150 330Z'];
    case 'wrap': return ['M140 350 Q400 300 660 350 Q650 430 540 445 Q460 450 400 410 Q340 450 260 445 Q150 430 140 350Z'];
    default: return [];
  }
}

function glasses(art: DemoArt, frame: DemoColour, lens: DemoLens): string {
  const stroke = FRAME[frame];
  const edge = frame === 'white' ? '#999' : stroke;
  const lenses = lensPaths(art)
    .map((d) => `<path d="${d}" fill="${LENS[lens]}" fill-opacity="${lens === 'clear' ? 0.55 : 0.9}" stroke="${edge}" stroke-width="${art === 'aviator' || art === 'browline' ? 8 : 16}" stroke-linejoin="round"/>`)
    .join('');
  const brow = art === 'browline' ? `<path d="M160 340 Q270 310 380 340 M420 340 Q530 310 640 340" fill="none" stroke="${frame === 'gold' ? '#222' : edge}" stroke-width="22" stroke-linecap="round"/>` : '';
  const single = art === 'shield' || art === 'wrap';
  const bridge = single ? '' : `<path d="M370 360 Q400 335 430 360" fill="none" stroke="${edge}" stroke-width="${art === 'aviator' ? 8 : 14}"/>${art === 'aviator' ? `<path d="M165 330 Q400 300 635 330" fill="none" stroke="${edge}" stroke-width="6"/>` : ''}`;
  const temples = `<path d="M${single ? 145 : 160} 345 L90 330 M${single ? 655 : 640} 345 L710 330" stroke="${edge}" stroke-width="12" stroke-linecap="round"/>`;
  const spots = frame === 'tortoise' ? lensPaths(art).map((d) => `<path d="${d}" fill="none" stroke="#c58a4a" stroke-width="4" stroke-dasharray="6 18"/>`).join('') : '';
  const shine = lens === 'clear' ? '' : `<path d="M${single ? 220 : 200} 360 q30 -20 60 -18" stroke="#fff" stroke-opacity=".5" stroke-width="10" stroke-linecap="round" fill="none"/>`;
  return `${temples}${lenses}${spots}${brow}${bridge}${shine}`;
}

function accessory(art: DemoArt, colour: DemoColour): string {
  const c = FRAME[colour];
  switch (art) {
    case 'case': return `<rect x="170" y="300" width="460" height="200" rx="100" fill="${c}"/><path d="M190 400 H610" stroke="#fff" stroke-opacity=".35" stroke-width="6" stroke-dasharray="14 10"/>`;
    case 'cord': return `<path d="M150 300 C250 520 350 200 450 420 S620 300 650 480" fill="none" stroke="${c}" stroke-width="14" stroke-linecap="round"/><circle cx="150" cy="300" r="22" fill="none" stroke="${c}" stroke-width="10"/><circle cx="650" cy="480" r="22" fill="none" stroke="${c}" stroke-width="10"/>`;
    case 'kit': return `<rect x="420" y="360" width="240" height="170" rx="24" fill="${c}"/><rect x="200" y="280" width="110" height="250" rx="28" fill="#dfe8ee" stroke="#7a8a96" stroke-width="8"/><rect x="225" y="230" width="60" height="60" rx="10" fill="#7a8a96"/>`;
    case 'cloth': return [0, 1, 2].map((i) => `<rect x="${220 + i * 40}" y="${260 + i * 50}" width="300" height="230" rx="18" fill="${[c, '#1f3a6b', '#c49a3f'][i]}" stroke="#fff" stroke-width="6"/>`).join('');
    default: return '';
  }
}

const MIRROR = '<defs><linearGradient id="m" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#9fd0f5"/><stop offset=".5" stop-color="#2c5f9e"/><stop offset="1" stop-color="#c6a4e8"/></linearGradient></defs>';

function productPicture(row: (typeof DEMO_PRODUCT_ROWS)[number], index: number, view: 1 | 2): string {
  const ground = view === 1 ? '#f7f6f3' : GROUND[index % GROUND.length]!;
  const body = row.lens === null ? accessory(row.art, row.frame) : glasses(row.art, row.frame, row.lens);
  const placed = view === 1 ? `<g transform="translate(400 400) scale(1.3) translate(-400 -400)">${body}</g>` : `<g transform="rotate(-9 400 400) translate(400 420) scale(1.15) translate(-400 -400)">${body}</g><ellipse cx="400" cy="640" rx="260" ry="26" fill="#000" fill-opacity=".07"/>`;
  return svg(800, 800, `${row.lens === 'mirror' ? MIRROR : ''}<rect width="800" height="800" fill="${ground}"/>${placed}`);
}

/** A sea-and-dunes landscape in the shop's blues, the wide banners of the home and about pages. */
function hero(sky: string, sea: string, sun: string): string {
  return svg(1200, 420, `<rect width="1200" height="420" fill="${sky}"/><circle cx="930" cy="150" r="70" fill="${sun}"/><path d="M0 250 Q300 220 600 245 T1200 235 V420 H0Z" fill="${sea}"/><path d="M0 300 Q200 270 420 300 T860 295 T1200 310 V420 H0Z" fill="#0d2340" fill-opacity=".55"/><path d="M0 360 Q260 320 520 350 T1200 345 V420 H0Z" fill="#e9dcc0"/>`);
}

const svg = (w: number, h: number, body: string) => `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}">${body}</svg>\n`;

mkdirSync(OUT, { recursive: true });
DEMO_PRODUCT_ROWS.forEach((row, i) => {
  writeFileSync(`${OUT}${row.slug}-1.svg`, productPicture(row, i, 1));
  writeFileSync(`${OUT}${row.slug}-2.svg`, productPicture(row, i, 2));
});
// The placeholder of a product without pictures: a frame outline on the card's grey, nothing that looks broken.
writeFileSync(`${OUT}placeholder.svg`, svg(800, 800, `<rect width="800" height="800" fill="#eef0f2"/><g fill="none" stroke="#b8bec5" stroke-width="14" stroke-linecap="round"><circle cx="290" cy="400" r="90"/><circle cx="510" cy="400" r="90"/><path d="M380 390 Q400 370 420 390 M200 385 L140 365 M600 385 L660 365"/></g>`));
writeFileSync(`${OUT}hero-home.svg`, hero('#13294b', '#2d6da3', '#f2c14e'));
writeFileSync(`${OUT}hero-about.svg`, hero('#5b7fa6', '#1f3a6b', '#f6e3a1'));
writeFileSync(`${OUT}eye-exam.svg`, svg(1200, 420, `<rect width="1200" height="420" fill="#eef3fa"/><path d="M360 210 Q600 40 840 210 Q600 380 360 210Z" fill="#fff" stroke="#13294b" stroke-width="14"/><circle cx="600" cy="210" r="90" fill="#2d6da3"/><circle cx="600" cy="210" r="40" fill="#13294b"/><circle cx="625" cy="185" r="14" fill="#fff"/>`));
