import { text } from './text.ts';

// Identifiers an agent passes to find an entity: any non-empty bounded text, so an unknown one is answered with
// what is wrong about it (404 not_found, 422 discount_unavailable), not with a 400 about its shape.

export const discountCodeRef = () => text({ min: 1, max: 64 });
export const orderIdRef = () => text({ min: 1, max: 100 });
export const cartIdRef = () => text({ min: 1, max: 100 });
