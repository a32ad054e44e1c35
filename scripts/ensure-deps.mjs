// Installs the project's npm dependencies when they are missing or older than package-lock.json.
// Plain Node with no dependencies, so it runs on a fresh clone before anything is installed.
import { existsSync, statSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const marker = join(root, 'node_modules', '.package-lock.json');
const lock = join(root, 'package-lock.json');
const stale = !existsSync(marker) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs);
if (stale) {
  process.stderr.write('Installing npm dependencies (npm ci)...\n');
  execSync('npm ci --no-audit --no-fund', { cwd: root, stdio: ['ignore', process.stderr, process.stderr] });
}
