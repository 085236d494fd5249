/** The executable: runs main() on the real process. Sets exitCode rather than exiting, so output flushes. */
import { processIo } from './io.js';
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2), processIo());
