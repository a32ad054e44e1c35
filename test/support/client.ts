/**
 * The MCP client side that every kind of test shares: connecting the official SDK client over
 * HTTP, and calling a tool for its text. No child processes and no files here, so the
 * extension-host suite (test/e2e/suite, bundled by esbuild and run inside VS Code) imports it
 * as well as the Node tests (test/support/server.ts re-exports it).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** An SDK client connected to a server's `/mcp` address with its bearer token. */
export async function connectHttp(url: string, token: string, name = 'test-client'): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

export interface TextResult {
  text: string;
  isError: boolean;
}

/** Calls a tool and joins the text of its content (an error result is returned, not thrown). */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<TextResult> {
  const result = (await client.callTool({ name, arguments: args })) as { content: { type: string; text?: string }[]; isError?: boolean };
  return { text: result.content.map((c) => c.text ?? '').join(''), isError: result.isError === true };
}

/** The text of a resource read's first content (the text variant of the union). */
export function resourceText(read: { contents: ({ text: string } | { blob: string })[] }): string {
  const first = read.contents[0];
  return first && 'text' in first ? first.text : '';
}
