/** Node fires a timer at once when its delay is past this (about 24.8 days): longer waits are cut to it. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
