/** Node fires a timer at once when its delay is past this (about 24.8 days): longer waits are cut to it. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** `promise`'s value, or undefined when it takes longer than `ms`; the timer is cleared either way. */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, waited]);
  } finally {
    clearTimeout(timer);
  }
}
