/**
 * The Content-Security-Policies of the preview webview and of the frame inside it that runs the
 * workspace's page and latest.js. Pure strings, shared by the host (the webview's page) and the
 * webview (the frame's page).
 *
 * The frame is an `about:srcdoc` document, and such a document inherits its parent's policy: both the
 * webview's policy and the frame's own apply to it, and a script runs only when both allow it. So:
 * - the webview's script-src admits inline scripts without a nonce ('unsafe-inline'; a nonce there would
 *   switch it off), or the frame could only run scripts carrying the webview's own nonce, which would
 *   then be known to the page's code, and a nonce allows a script from any address;
 * - the frame's own policy admits only inline scripts that carry the frame's nonce, fresh for every
 *   load, and no address at all: the page and the atoms cannot load code or styles from the network
 *   (nor from the webview's resources) into VS Code.
 * The webview's page itself has no inline script and builds its DOM with textContent only.
 */

/**
 * The webview's policy: its own script and stylesheet from the extension, nothing from elsewhere. With
 * `hotSwap`, 'unsafe-eval' too: the frame inherits this policy, and a swap evaluates the changed atoms'
 * code in the frame (hotSwap.ts). The webview's own page evaluates nothing.
 */
export function webviewCsp(cspSource: string, hotSwap = false): string {
  return [
    "default-src 'none'",
    `style-src ${cspSource} 'unsafe-inline'`,
    `img-src ${cspSource} data: blob:`,
    'media-src data: blob:',
    `font-src ${cspSource} data:`,
    `script-src ${cspSource} 'unsafe-inline'${hotSwap ? " 'unsafe-eval'" : ''}`,
    "frame-src 'self' about:",
  ].join('; ');
}

/**
 * The frame's own policies, which apply together. The first admits only the inline scripts whose
 * SHA-256 is in `scriptHashes` (each begins with the lockdown, page.ts) and the styles carrying `nonce`;
 * the second only inline code. Together: those scripts and styles, and images, sounds and fonts from
 * data: and blob: addresses; no network address anywhere, no nested frame or worker, no WebRTC.
 *
 * Hashes rather than a nonce for scripts: a nonce given in a `<meta>` policy stays readable to the code
 * it lets run (`script.nonce`, the attribute), which could then start a nested frame (`srcdoc`, which
 * inherits this policy) running a script of its own where the lockdown never ran. A hash admits only
 * scripts that begin with the lockdown. `webrtc 'block'` is CSP3's switch for WebRTC; Chromium 150 does
 * not know it yet (it says "Unrecognized directive" and lets WebRTC through), so the lockdown is what
 * holds there, and the directive holds wherever it is known.
 */
/*
 * With `hotSwap`, both policies also say 'unsafe-eval', and that is all they add: a swap (hotSwap.ts)
 * evaluates the changed atoms' code in the realm the lockdown already ran in, through a function the
 * bundle itself defines. Code given to eval can do nothing the atoms' own code could not (it is the
 * atoms' code), and it cannot reach a realm without the lockdown: no nested frame may load (frame-src
 * and child-src 'none'; an about:blank frame gets no script either, preview-exfiltration.test.ts tries
 * eval there), no worker, no address. Scripts are still admitted only by hash.
 */
export function frameCsp(nonce: string, scriptHashes: readonly string[] = [], hotSwap = false): string[] {
  if (!/^[A-Za-z0-9_-]{16,}$/.test(nonce)) throw new Error('frameCsp: the nonce must be at least 16 letters, digits, "-" or "_"');
  for (const h of scriptHashes) if (!/^[A-Za-z0-9+/]{43}=$/.test(h)) throw new Error('frameCsp: a script hash must be a base64 SHA-256');
  const scripts = scriptHashes.length ? [...new Set(scriptHashes)].map((h) => `'sha256-${h}'`).join(' ') : "'none'";
  const evaluate = hotSwap ? " 'unsafe-eval'" : '';
  return [
    `default-src 'none'; script-src ${scripts}${evaluate}; style-src 'nonce-${nonce}'; img-src data: blob:; media-src data: blob:; font-src data:; connect-src 'none'; frame-src 'none'; child-src 'none'; worker-src 'none'; manifest-src 'none'; base-uri 'none'; form-action 'none'; webrtc 'block'`,
    `script-src 'unsafe-inline'${evaluate}; style-src 'unsafe-inline'`,
  ];
}

/** A fresh nonce for one frame (128 random bits as hex): never the webview's, never reused. */
export function makeFrameNonce(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * `html` with the policies as `<meta>` elements in front of everything (after the doctype, which keeps
 * the page in standards mode), so no script of the page can run before they apply; `extraMetas` (HTML)
 * follows them.
 */
export function withCsp(html: string, policies: readonly string[], extraMetas = ''): string {
  const metas = policies.map((p) => `<meta http-equiv="Content-Security-Policy" content="${p.replace(/"/g, '&quot;')}">`).join('') + extraMetas;
  const doctype = /^\uFEFF?\s*<!doctype\b[^>]*>/i.exec(html);
  return doctype ? doctype[0] + metas + html.slice(doctype[0].length) : metas + html;
}
