// @fastify/rate-limit's in-memory store: CommonJS without types of its own. What src/http/rate-limit.ts uses of it.
declare module '@fastify/rate-limit/store/LocalStore.js' {
  type Counted = { current: number; ttl: number };

  export default class LocalStore {
    constructor(continueExceeding?: boolean, exponentialBackoff?: boolean, cache?: number);
    incr(key: string, callback: (error: Error | null, result?: Counted) => void, timeWindow: number, max: number): void;
    child(options: object): LocalStore;
  }
}
