/**
 * A minimal MCP Apps host for the tests, built on the ext-apps SDK's host side (AppBridge), bundled by
 * esbuild and run in Chromium. It renders an app as VS Code does: the `ui://` page in a sandboxed frame
 * (scripts only, an opaque origin) with VS Code's Content-Security-Policy preamble in front, and the
 * app's tool calls and resource reads sent to the real server through functions the test exposes
 * (window.mcpCallTool, window.mcpReadResource: the Node side's MCP client over HTTP).
 */
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

interface Mount {
  id: string;
  html: string;
  tool: { name: string; inputSchema: { type: 'object' } };
  input: Record<string, unknown>;
  result: { content: unknown[]; isError?: boolean };
}

declare global {
  interface Window {
    mcpCallTool(params: unknown): Promise<unknown>;
    mcpReadResource(params: unknown): Promise<unknown>;
    mountApp(mount: Mount): Promise<void>;
    hostLog: string[];
  }
}

/** The policy VS Code puts in front of an app's page when the resource declares no domain. */
const VSCODE_CSP =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; font-src 'self'; media-src 'self' data:; frame-src 'none'; object-src 'none'; base-uri 'self';";

function withPreamble(html: string): string {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${VSCODE_CSP}">`;
  return /<head[^>]*>/i.test(html) ? html.replace(/<head[^>]*>/i, (h) => h + meta) : meta + html;
}

window.hostLog = [];

window.mountApp = async ({ id, html, tool, input, result }) => {
  const iframe = document.createElement('iframe');
  iframe.id = id;
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.style.cssText = 'width: 900px; height: 600px; border: 1px solid #555; display: block; margin: 8px; background: #1e1e1e';
  document.body.append(iframe);
  // The newest app is on screen, as in a chat scrolled to its end (Chromium pauses the animation frames
  // of cross-origin frames out of view).
  iframe.scrollIntoView();
  const bridge = new AppBridge(
    null,
    { name: 'atomic-test-host', version: '1.0.0' },
    { serverTools: {}, serverResources: {}, logging: {} },
    { hostContext: { theme: 'dark', displayMode: 'inline', platform: 'desktop', toolInfo: { tool } } },
  );
  bridge.oncalltool = async (params) => (await window.mcpCallTool(params)) as never;
  bridge.onreadresource = async (params) => (await window.mcpReadResource(params)) as never;
  bridge.onsizechange = ({ height }) => {
    if (height) iframe.style.height = `${Math.min(height, 1400)}px`;
  };
  bridge.onloggingmessage = (m) => void window.hostLog.push(JSON.stringify(m));
  const initialized = new Promise<void>((resolve) => (bridge.oninitialized = () => resolve()));
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  iframe.srcdoc = withPreamble(html);
  await initialized;
  await bridge.sendToolInput({ arguments: input });
  await bridge.sendToolResult(result as never);
};
