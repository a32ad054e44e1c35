/**
 * The sandboxed frame that runs latest.js, for the editor's live preview (media/preview) and the game app in
 * the chat (media/apps/game.mts): one way to make it, so both isolate the bundle the same way.
 */
import { makeFrameNonce } from '../../src/preview/csp.js';
import { framePage } from '../../src/preview/page.js';

/**
 * Replaces `old` with a fresh frame in `stage` running `bundle` on `page` (null: the built-in page with a
 * `<canvas id="game">`). Scripts run in an opaque origin, so the bundle reaches nothing of the page that
 * holds the frame (its messages, the host, VS Code); the frame has its own CSP and a nonce fresh for this load.
 */
export function mountBundleFrame(stage: HTMLElement, old: HTMLIFrameElement | undefined, page: string | null, bundle: string, title: string): HTMLIFrameElement {
  old?.remove();
  const frame = document.createElement('iframe');
  frame.id = 'frame';
  frame.title = title;
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.srcdoc = framePage(page, bundle, makeFrameNonce());
  stage.append(frame);
  return frame;
}
