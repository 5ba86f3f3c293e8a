import { AppError } from '../../core/errors.ts';

/** `read()`'s answer, or undefined when what it reads is not there any more (a 404 from its service). */
export async function unlessGone<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof AppError && err.status === 404) return undefined;
    throw err;
  }
}
