/**
 * A build ships onnxruntime's library for one platform (scripts/build.mjs, `--target`; `npm run package`
 * makes a .vsix per target): that platform's files beside the bundle, where dist/onnxruntime/lib/ort.js's
 * own require finds them, and no other platform's, even in a folder built before for another.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/tmp.js';

const root = join(__dirname, '..', '..');

function build(outdir: string, target: string): void {
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), `--outdir=${outdir}`, `--target=${target}`], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** platform/arch → the files of that platform's library in the build. */
function libraries(outdir: string): Record<string, string[]> {
  const bin = join(outdir, 'onnxruntime', 'bin', 'napi-v6');
  const out: Record<string, string[]> = {};
  if (!existsSync(bin)) return out;
  for (const platform of readdirSync(bin)) for (const arch of readdirSync(join(bin, platform))) out[`${platform}/${arch}`] = readdirSync(join(bin, platform, arch)).sort();
  return out;
}

test("a build ships its target's onnxruntime library and no other", () => {
  const outdir = tempDir('atomic-build-target-');
  build(outdir, 'linux-arm64');
  assert.deepEqual(libraries(outdir), { 'linux/arm64': ['libonnxruntime.so.1', 'onnxruntime_binding.node'] });
  assert.ok(existsSync(join(outdir, 'onnxruntime', 'lib', 'ort.js')));
  // The same folder built again for macOS: the Linux library goes, and the package's second copy of
  // the macOS one (under its full version) is left out.
  build(outdir, 'darwin-arm64');
  assert.deepEqual(libraries(outdir), { 'darwin/arm64': ['libonnxruntime.1.dylib', 'onnxruntime_binding.node'] });
  // A target onnxruntime ships nothing for: no library (the model runs on tfjs there).
  build(outdir, 'alpine-x64');
  assert.deepEqual(libraries(outdir), {});
});
