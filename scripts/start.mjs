// `npm start`: builds the extension, packages the .vsix, installs it into VS Code (code-server, cached by
// scripts/e2e/install.sh on first use) and opens a sample game workspace with it. Prints the address to
// open in a browser and runs until Ctrl-C. Options: --port N (default 8080, or a free port if taken),
// --folder DIR (another workspace). Only the npm registry and Debian apt are used on a fresh machine.
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildAndPackage, e2eHome, ensureInstalled, freePort, installVsix, log, root, startCodeServer, workbenchUrl } from './e2e/lib.mjs';
import { seedSample } from './e2e/sample.mjs';

const { values } = parseArgs({ options: { port: { type: 'string' }, folder: { type: 'string' } } });

function portIsFree(port) {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)));
  });
}

/** The workspace to open: --folder, else examples/jumping-cube, else a sample game made once in the cache. */
async function workspaceFolder() {
  if (values.folder) return resolve(values.folder);
  const example = join(root, 'examples', 'jumping-cube');
  if (existsSync(example)) return example;
  const sample = join(e2eHome, 'sample-jumping-cube');
  if (!existsSync(join(sample, '.atomic'))) {
    mkdirSync(sample, { recursive: true });
    log(`creating the sample game workspace in ${sample}`);
    await seedSample(sample);
  }
  return sample;
}

log('checking VS Code (code-server), Node 24 and Chromium in the cache; the first run installs them (a few minutes)');
ensureInstalled();
log('building and packaging the extension');
const vsix = buildAndPackage();
const runDir = join(e2eHome, 'start');
mkdirSync(runDir, { recursive: true });
installVsix(vsix, join(runDir, 'ext'), join(runDir, 'ud'));
const folder = await workspaceFolder();
const wanted = values.port ? Number(values.port) : 8080;
const port = (await portIsFree(wanted)) ? wanted : await freePort();
const server = await startCodeServer({ runDir, folder, port, keepSettings: true, settings: { 'workbench.colorTheme': 'Default Dark Modern' } });
const url = workbenchUrl(server.url, folder);
process.stdout.write(
  `\nAtomic Coding is running in VS Code (code-server) with ${vsix.split('/').pop()} installed.\n` +
    `Workspace: ${folder}\n\nOpen this address in a browser:\n\n  ${url}\n\n` +
    `Then click the atom icon in the activity bar. Logs: ${join(runDir, 'code-server.log')}. Press Ctrl-C to stop.\n`,
);
// Ctrl-C ends this process; its exit stops code-server (scripts/e2e/lib.mjs).
server.child.on('exit', (code) => {
  log(`code-server exited (${code}); see ${join(runDir, 'code-server.log')}`);
  process.exit(code ?? 1);
});
