/**
 * The transcript format's version. A change to any line's shape bumps it and adds a migration in
 * `reader.ts`; readers refuse newer versions. (Its own module: writing a transcript needs this, not
 * the schemas in `entries.ts` that reading one checks lines against.)
 */
export const TRANSCRIPT_VERSION = 1;
