// The console answers 404 where the public API's "not found" of a message or tag is a 400 (the Inbox's tag and
// rating routes call the public API's services).
import { DomainError, Errors } from '../../errors.ts';

/** The public API's "not found" (400) of a message or tag is the console's 404. */
export async function asConsole<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof DomainError && error.key === 'messageNotFound') throw Errors.consoleMessageNotFound();
    if (error instanceof DomainError && error.key === 'tagNotFound') throw Errors.consoleTagNotFound();
    throw error;
  }
}
