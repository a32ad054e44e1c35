// `npm run package [-- --target=T1,T2 | --target=all]`: the extension's .vsix for each target platform (VS Code's
// names), each with that platform's onnxruntime library beside the bundles (scripts/build.mjs), so the embedding
// model runs at onnxruntime's speed there; a target onnxruntime-node ships no library for gets a package whose model
// runs on tfjs's wasm backend (the extension says so in get_status). Without --target: one package for this
// machine, untargeted (what `npm start` and the e2e tests install).
import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { buildAndPackage, root } from './e2e/lib.mjs';

/** The targets onnxruntime-node 1.30 ships a CPU library for (its bin/napi-v6/<platform>/<arch>). */
const WITH_ONNXRUNTIME = ['linux-x64', 'linux-arm64', 'darwin-arm64', 'win32-x64', 'win32-arm64'];
/** VS Code's other desktop targets: their model runs on tfjs (no onnxruntime library for them, or a musl libc). */
const ON_TFJS = ['darwin-x64', 'alpine-x64', 'alpine-arm64', 'linux-armhf'];

const arg = process.argv.find((a) => a.startsWith('--target='))?.slice('--target='.length);
const targets = arg === undefined ? [undefined] : arg === 'all' ? [...WITH_ONNXRUNTIME, ...ON_TFJS] : arg.split(',').map((t) => t.trim());
const unknown = targets.filter((t) => t !== undefined && !WITH_ONNXRUNTIME.includes(t) && !ON_TFJS.includes(t));
if (unknown.length > 0) {
  process.stderr.write(`unknown target ${unknown.join(', ')}: use one of ${[...WITH_ONNXRUNTIME, ...ON_TFJS].join(', ')}, or all\n`);
  process.exit(2);
}
for (const target of targets) {
  const vsix = buildAndPackage(target);
  const runtime = target === undefined || WITH_ONNXRUNTIME.includes(target) ? 'onnxruntime' : 'tfjs (wasm)';
  process.stdout.write(`${relative(root, vsix)}  ${(statSync(vsix).size / 2 ** 20).toFixed(1)} MiB  ${target ?? 'this machine'}, model on ${runtime}\n`);
}
