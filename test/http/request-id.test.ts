// Request ids (X-Request-Id, and the problem `instance` that names the occurrence in the logs) come from a pooled
// random buffer refilled every 512 ids (src/http/request-id.ts): across refills they must stay distinct and keep
// their 16-hex-character shape.
import { describe, expect, it } from 'vitest';
import { newRequestId } from '../../src/http/request-id.ts';

describe('newRequestId', () => {
  it('gives 5,000 distinct 16-hex-character ids across ten pool refills', () => {
    const ids = Array.from({ length: 5_000 }, newRequestId);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
