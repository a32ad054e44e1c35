/**
 * The sandboxed frame that runs latest.js, and the console lines it reports, for the editor's live preview (media/preview) and the game app in
 * the chat (media/apps/game.mts): one way to make it, so both isolate the bundle the same way.
 */
import { describeLocation } from '../../src/preview/bundleMap.js';
import { makeFrameNonce } from '../../src/preview/csp.js';
import { framePage } from '../../src/preview/page.js';
import type { BundleLocation } from '../../src/protocol/webviewMessages.js';

/**
 * Replaces `old` with a fresh frame in `stage` running `bundle` on `page` (null: the built-in page with a
 * `<canvas id="game">`). Scripts run in an opaque origin, so the bundle reaches nothing of the page that
 * holds the frame (its messages, the host, VS Code); the frame has its own CSP (its scripts by hash, each
 * beginning with the lockdown that takes WebRTC and WebTransport away, page.ts) and a nonce for styles fresh for
 * this load. No allow-top-navigation, allow-popups or allow-forms: the frame navigates no other window.
 */
export function mountBundleFrame(stage: HTMLElement, old: HTMLIFrameElement | undefined, page: string | null, bundle: string, title: string, hotSwap = false): HTMLIFrameElement {
  old?.remove();
  const frame = document.createElement('iframe');
  frame.id = 'frame';
  frame.title = title;
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.srcdoc = framePage(page, bundle, makeFrameNonce(), hotSwap);
  stage.append(frame);
  return frame;
}

/** A console line's link to the atom it came from: what it says on hover, and what a click does. */
export interface AtomLink {
  title(atom: string): string;
  open(atom: string, line: number | null): void;
}

/**
 * Appends one console line of the frame to `list` (at most `max` kept, the oldest dropped): its level,
 * where it came from (a link to the atom and line when the bundle map knows them) and its text.
 */
export function appendConsoleEntry(list: HTMLElement, max: number, level: string, text: string, location: BundleLocation | null, link: AtomLink): void {
  const row = document.createElement('div');
  row.className = `entry ${level}`;
  const where = location ? describeLocation(location) : '';
  if (where && location?.atom) {
    const a = document.createElement('a');
    a.href = '#';
    a.textContent = where;
    a.title = link.title(location.atom);
    a.dataset.atom = location.atom;
    a.dataset.line = String(location.atomLine ?? '');
    const { atom, atomLine } = location;
    a.addEventListener('click', (e) => {
      e.preventDefault();
      link.open(atom, atomLine);
    });
    row.append(a);
  } else if (where) {
    row.append(Object.assign(document.createElement('span'), { className: 'where', textContent: where }));
  }
  row.append(Object.assign(document.createElement('span'), { className: 'text', textContent: text }));
  list.append(row);
  while (list.childElementCount > max) list.firstElementChild?.remove();
  list.scrollTop = list.scrollHeight;
}
