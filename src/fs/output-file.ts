import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { ConfigError, messageOf } from "../errors.js";
import { writeFileAtomic } from "./write-file-atomic.js";

/**
 * Writes a file a flag named (whole or not at all), making its folder first. A file that cannot be
 * written is a `ConfigError` naming the flag and the file.
 */
export async function writeOutputFile(flag: string, file: string, text: string): Promise<void> {
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeFileAtomic(file, text);
  } catch (error) {
    throw new ConfigError(`${flag} ${file}: cannot write: ${messageOf(error)}`, error);
  }
}
