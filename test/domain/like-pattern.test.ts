// containsPattern: `q` of products.search matches literally: %, _ and \ are not wildcards.
import { describe, expect, it } from 'vitest';
import { containsPattern } from '../../src/domain/like-pattern.ts';

/** A reference LIKE matcher with backslash escapes (PostgreSQL's default), to check the pattern's meaning. */
function like(text: string, pattern: string): boolean {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') re += (pattern[++i] ?? '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    else if (c === '%') re += '[\\s\\S]*';
    else if (c === '_') re += '[\\s\\S]';
    else re += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`).test(text);
}

describe('containsPattern', () => {
  it('wraps plain text in % wildcards', () => {
    expect(containsPattern('aviator')).toBe('%aviator%');
  });

  it('escapes %, _ and the escape character itself', () => {
    expect(containsPattern('%')).toBe('%\\%%');
    expect(containsPattern('_')).toBe('%\\_%');
    expect(containsPattern('\\')).toBe('%\\\\%');
    expect(containsPattern('50%_off\\now')).toBe('%50\\%\\_off\\\\now%');
  });

  it("leaves quotes and SQL alone (the pattern is a bound parameter)", () => {
    expect(containsPattern("' OR 1=1 --")).toBe("%' OR 1=1 --%");
  });

  it.each([
    ['%', '100% UV', true],
    ['%', 'no percent sign', false],
    ['_', 'snake_case', true],
    ['_', 'x', false],
    ['\\', 'back\\slash', true],
    ['\\', 'slash', false],
    ['a_c', 'abc', false],
    ['a_c', 'xa_cx', true],
    ['a%c', 'abbbc', false],
  ])('q=%j against %j matches: %s', (q, text, expected) => {
    expect(like(text, containsPattern(q))).toBe(expected);
  });
});
