/** The executable: runs main() on the real process. Sets exitCode rather than exiting, so output flushes. */
import { deferMemoryReducer, EXIT } from '../core/index.js';

// Before the rest loads: the first full collection, while modules load, is what schedules V8's memory
// reducer, whose own collections would then land in a run between sparse arrivals (src/core/memory-reducer.ts).
deferMemoryReducer();
const { processIo } = await import('./io.js');
const { main } = await import('./main.js');

const io = processIo();
// A crash outside main() still goes through the secret mask (Node's default handler would print the raw stack).
const crash = (error: unknown): void => {
  io.stderr(
    `loadproof: internal error (a bug; please report it):\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(EXIT.runFailed);
};
process.on('uncaughtException', crash);
process.on('unhandledRejection', crash);
process.exitCode = await main(process.argv.slice(2), io);
