import { z } from "zod";

/**
 * A step number as read back: replay indexes arrays by it, so a forged huge one is refused (every
 * step limit is at most 100,000).
 */
export const StepSchema = z.number().int().positive().max(1_000_000);
