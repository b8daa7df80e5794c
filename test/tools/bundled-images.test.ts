// The pictures that ship with the service (/assets/images/<name>.<hash>.svg, the demo's) through the tools an agent
// edits the demo with: products.update, products.attach_image, variants and services.update keep or set them, and
// the storefront serves what was stored; any other relative path, an unknown picture or an outdated hash is
// 400 invalid_image_url and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledImagePath } from '../../src/assets/images.ts';
import { seedDemo } from '../../src/cli/seed/index.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { expectProblem } from '../helpers/problem.ts';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  await seedDemo(t.db);
  key = await t.key(['products:write', 'pages:write']);
});
afterAll(async () => {
  await t?.close();
});

const call = (name: string, body: unknown) => t.call(name, body, key);
const imagesOf = async (slug: string) => (await t.db.product.findUniqueOrThrow({ where: { slug } })).images;

const front = () => bundledImagePath('havblik-aviator-1.svg');
const angle = () => bundledImagePath('havblik-aviator-2.svg');
// Shaped like a bundled path, but not one the service serves: an unknown name, or a picture's path with another hash.
const unknownPicture = '/assets/images/no-such-picture.0123456789ab.svg';
const staleHash = () => front().replace(/\.[0-9a-f]{12}\.svg$/, '.000000000000.svg');
const REFUSED = () => [unknownPicture, staleHash(), '/etc/passwd', '../assets/images/havblik-aviator-1.svg', front().slice(1), `${front()}?x=1`, `//evil.example${front()}`];

describe('bundled pictures on a demo product', () => {
  it('products.update keeps the demo pictures, reorders them and mixes them with an https URL', async () => {
    expect(await imagesOf('havblik-aviator')).toEqual([front(), angle()]);
    // What an agent does when it edits a demo product: sends back the images it read, changed or not.
    const got = (await call('products.get', { slug: 'havblik-aviator' })).json().result as { images: string[] };
    expect((await call('products.update', { slug: 'havblik-aviator', patch: { name: 'Havblik Aviator', images: got.images } })).statusCode).toBe(200);
    const mixed = [angle(), 'https://cdn.example.com/aviator.jpg', front()];
    const res = await call('products.update', { slug: 'havblik-aviator', patch: { images: mixed } });
    expect(res.statusCode, res.body).toBe(200);
    expect(await imagesOf('havblik-aviator')).toEqual(mixed);
    // The storefront shows them: the bundled ones at their served path.
    const page = await t.app.inject({ method: 'GET', url: '/products/havblik-aviator' });
    expect(page.body).toContain(`src="${angle()}"`);
    expect((await t.app.inject({ method: 'GET', url: angle() })).statusCode).toBe(200);
  });

  it('products.create sets a bundled picture on a new product', async () => {
    const res = await call('products.create', { name: 'Demo copy', slug: 'demo-copy', description: 'A copy of a demo product.', priceDkk: 10_000, stock: 1, images: [front()] });
    expect(res.statusCode, res.body).toBe(200);
    expect(await imagesOf('demo-copy')).toEqual([front()]);
  });

  it.each(REFUSED().map((path) => [path]))('products.update refuses %s with 400 invalid_image_url and changes nothing', async (path) => {
    const before = await imagesOf('havblik-aviator');
    const audits = await t.db.auditEntry.count();
    const problem = expectProblem(await call('products.update', { slug: 'havblik-aviator', patch: { images: [front(), path] } }), 400, 'invalid_image_url');
    expect(problem.detail).toMatch(/^patch\.images\.1:/);
    expect(await imagesOf('havblik-aviator')).toEqual(before);
    expect(await t.db.auditEntry.count()).toBe(audits);
  });

  it('products.attach_image attaches a bundled picture once, and refuses one the service does not serve', async () => {
    const other = bundledImagePath('nordlys-wayfarer-1.svg');
    const res = await call('products.attach_image', { slug: 'demo-copy', imageUrl: other });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().result).toMatchObject({ attached: other, totalImages: 2 });
    for (const path of REFUSED()) expectProblem(await call('products.attach_image', { slug: 'demo-copy', imageUrl: path }), 400, 'invalid_image_url');
    expect(await imagesOf('demo-copy')).toEqual([front(), other]);
  });

  it('services.update keeps a demo service picture; a layout may name only served pictures', async () => {
    const hero = bundledImagePath('eye-exam.svg');
    expect((await call('services.update', { slug: 'eye-exam', patch: { heroImage: hero } })).statusCode).toBe(200);
    expectProblem(await call('services.update', { slug: 'eye-exam', patch: { heroImage: unknownPicture } }), 400, 'invalid_image_url');
    expect((await t.db.serviceOffering.findUniqueOrThrow({ where: { slug: 'eye-exam' } })).heroImage).toBe(hero);
    const layout = (imageUrl: string) => ({ slug: 'about', layout: { sections: [{ id: 'hero', key: 'hero', props: { title: 'About', imageUrl } }] }, confirm: true });
    expect((await call('pages.set_layout', layout(bundledImagePath('hero-about.svg')))).statusCode).toBe(200);
    expectProblem(await call('pages.set_layout', layout(unknownPicture)), 400, 'invalid_image_url');
  });
});
