/**
 * Stops calling a dependency that keeps failing: after `threshold` failures in a row it is not called for `openMs`
 * (callers answer at once instead of waiting for another timeout). When that time is up, calls go through again;
 * one success closes the breaker, one failure opens it for another `openMs`. State is per process.
 */
export class CircuitBreaker {
  private consecutiveFailures = 0;
  private openUntil = 0;
  private halfOpen = false;

  constructor(private readonly options: { threshold: number; openMs: number; now?: () => number }) {}

  /** Milliseconds before the dependency may be called again; 0 when it may be called now. */
  msUntilRetry(): number {
    const left = this.openUntil - this.now();
    if (left > 0) return left;
    if (this.openUntil > 0) {
      this.openUntil = 0;
      this.halfOpen = true;
    }
    return 0;
  }

  recordSuccess(): void {
    this.consecutiveFailures = 0;
    this.halfOpen = false;
  }

  recordFailure(): void {
    this.consecutiveFailures++;
    if (this.halfOpen || this.consecutiveFailures >= this.options.threshold) {
      this.openUntil = this.now() + this.options.openMs;
      this.consecutiveFailures = 0;
      this.halfOpen = false;
    }
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}
