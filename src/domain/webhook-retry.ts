/**
 * When a failed delivery is tried again: the schedule's wait for this attempt plus up to 20 % jitter (never
 * earlier than the schedule says, and endpoints recovering from an outage are not hit by every delivery at once).
 * Null once the schedule is exhausted: the delivery has failed.
 */
export function retryDelayMs(failedAttempts: number, scheduleMs: readonly number[], random: () => number = Math.random): number | null {
  const base = scheduleMs[failedAttempts - 1];
  return base === undefined ? null : Math.round(base * (1 + 0.2 * random()));
}

/** A receiver's answer counts as delivered only with a 2xx status. */
export const isDelivered = (status: number) => status >= 200 && status < 300;

/** At most this much of an endpoint's answer is kept with the attempt. */
export const STORED_RESPONSE_BYTES = 1024;

/** Cuts text to at most `bytes` UTF-8 bytes without splitting a character. */
export function truncateUtf8(text: string, bytes: number): string {
  const encoded = new TextEncoder().encode(text);
  if (encoded.length <= bytes) return text;
  // A character cut in half decodes as U+FFFD at the end; drop it.
  return new TextDecoder().decode(encoded.subarray(0, bytes)).replace(/\uFFFD$/, '');
}
