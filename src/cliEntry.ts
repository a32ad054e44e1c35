/**
 * dist/cli.js, the command line as agents and scripts start it: turns on Node's compile cache
 * (util/compileCache.ts), then loads the command line itself (src/cli.ts, built as
 * dist/cli-main.js), so that its 2.3 MB are read compiled instead of compiled at every start.
 * Kept tiny: this file is compiled at every start.
 */
import { join } from 'node:path';
import { servesEmbeddedWorkspace } from './cliArgs.js';
import { startModelProcessEarly } from './search/embeddings/modelProcess.js';
import { enableCompileCache } from './util/compileCache.js';

enableCompileCache();
// A search's query waits for the model's cold start: in a workspace embedded before, it starts
// now, on another core, while the 2.3 MB below load (the provider adopts it: modelProcess.ts).
if (servesEmbeddedWorkspace(process.argv.slice(2))) startModelProcessEarly();
// Loaded at run time, after the cache is on (a static import would be bundled into this file).
// eslint-disable-next-line @typescript-eslint/no-require-imports
require(join(__dirname, 'cli-main.js'));
