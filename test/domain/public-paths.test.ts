import { describe, expect, it } from 'vitest';
import { pagePath, publicUrl, servicePath } from '../../src/domain/public-paths.ts';

describe('public paths', () => {
  it('puts pages under /info and services under /services', () => {
    expect(pagePath('about')).toBe('/info/about');
    expect(servicePath('eye-exam')).toBe('/services/eye-exam');
  });

  it('is relative without a base URL and absolute with one', () => {
    expect(publicUrl(undefined, '/services/x')).toBe('/services/x');
    expect(publicUrl('https://shop.example.com', '/services/x')).toBe('https://shop.example.com/services/x');
  });
});
