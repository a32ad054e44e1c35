// The MCP Apps (src/mcp/apps.ts): each one self-contained HTML page in dist/apps/, its script bundled by
// esbuild and inlined with its styles, so the page loads nothing from any address. The graph app's script
// is admitted by its hash in the page's Content-Security-Policy. Used by scripts/build.mjs.
import * as esbuild from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** [entry, HTML template, output under dist/, extra esbuild options]. */
const APPS = [
  // The editor's graph page runs unchanged: its acquireVsCodeApi() is this module's (media/apps/vscodeShim.ts).
  ['media/apps/graph.mts', 'media/apps/graph.html', 'apps/graph.html', { inject: ['media/apps/vscodeShim.ts'] }],
  ['media/apps/game.mts', 'media/apps/game.html', 'apps/game.html', {}],
];

/** `</script` and `<!--` cannot appear inside an inline script; escaped they mean the same in JavaScript. */
function inlineSafe(js) {
  return js.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

function page(root, template, js) {
  const script = inlineSafe(js);
  const hash = `sha256-${createHash('sha256').update(script, 'utf8').digest('base64')}`;
  const fill = {
    SCRIPT: `<script>${script}</script>`,
    SCRIPT_HASH: hash,
    GRAPH_CSS: readFileSync(join(root, 'media', 'graph', 'graph.css'), 'utf8'),
    APPS_CSS: readFileSync(join(root, 'media', 'apps', 'apps.css'), 'utf8'),
  };
  // A function as the replacement: a `$` in the script must stay a `$`.
  return readFileSync(join(root, template), 'utf8').replace(/\{\{(\w+)\}\}/g, (m, key) => fill[key] ?? m);
}

/** esbuild contexts that write dist/apps/*.html on every (re)build. */
export async function appContexts(root, dist) {
  mkdirSync(join(dist, 'apps'), { recursive: true });
  const contexts = [];
  for (const [entry, template, out, extra] of APPS) {
    contexts.push(
      await esbuild.context({
        entryPoints: [join(root, entry)],
        bundle: true,
        write: false,
        // Always small: the page travels in every resources/read of the app.
        minify: true,
        sourcemap: false,
        legalComments: 'none',
        logLevel: 'warning',
        platform: 'browser',
        target: 'es2022',
        format: 'iife',
        ...extra,
        inject: (extra.inject ?? []).map((f) => join(root, f)),
        plugins: [
          {
            name: 'inline-page',
            setup(build) {
              build.onEnd((result) => {
                if (result.errors.length || !result.outputFiles?.length) return;
                writeFileSync(join(dist, out), page(root, template, result.outputFiles[0].text));
              });
            },
          },
        ],
      }),
    );
  }
  return contexts;
}
