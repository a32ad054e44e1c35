// npm start (headless until the extension lands): serves examples/jumping-cube if present,
// else the current folder, over MCP on 127.0.0.1, until Ctrl-C.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sample = join(root, 'examples', 'jumping-cube');
const workspace = process.argv[2] ?? (existsSync(sample) ? sample : process.cwd());
const child = spawn(process.execPath, [join(root, 'dist', 'cli.js'), 'serve', '--workspace', workspace], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => process.exit(code ?? 0));
