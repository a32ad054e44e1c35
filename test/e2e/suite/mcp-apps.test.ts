/**
 * MCP Apps and icons as VS Code meets them (issue 17): VS Code's own MCP client starts our server and lists
 * every atom tool; the tools/list it receives carries the apps (`_meta.ui.resourceUri`) and the icons, and
 * the `ui://` pages it would render are served as MCP Apps. VS Code's extension API shows a tool's name,
 * description and input schema but not its `_meta` or icons, so those are read from the same server, at
 * the address and with the token VS Code was given (server.json), in the same session shape.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { AtomicCodingApi } from '../../../src/extension.js';
import { TOOL_APPS } from '../../../src/mcp/apps.js';
import { allTools } from '../../../src/mcp/tools/index.js';
import { connectHttp } from '../../support/client.js';
import { readyExtension, report, until } from './support.js';

describe('MCP Apps in VS Code', function () {
  this.timeout(90_000);
  let api: AtomicCodingApi;

  before(async () => {
    ({ api } = await readyExtension());
    assert.equal(api.lifecycle?.state, 'ready', api.lifecycle?.error);
  });

  it('VS Code lists every atom tool; the tools it is given carry their app and icon', async () => {
    const expected = allTools.map((t) => t.name);
    const ours = await until('VS Code to discover the atom tools', async () => {
      await vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true });
      // Every atom tool, once: an earlier test may have connected a second entry (.vscode/mcp.json) to the same atoms.
      const found = expected.map((name) => vscode.lm.tools.find((t) => t.name.includes('atomic') && t.name.endsWith(`_${name}`)));
      return found.every((t) => t !== undefined) ? (found as vscode.LanguageModelToolInformation[]) : undefined;
    });
    const structure = ours.find((t) => t.name.endsWith('_get_code_structure'))!;
    assert.match(structure.description, /^The map, without code/, 'the description is the server\'s');

    const folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const info = JSON.parse(readFileSync(join(folder, '.atomic', 'server.json'), 'utf8')) as { url: string; token: string };
    assert.equal(info.url, api.lifecycle!.host!.url, 'the address VS Code was given');
    const client = await connectHttp(info.url, info.token, 'e2e-mcp-apps');
    try {
      const { tools } = await client.listTools();
      const listed = JSON.stringify({ tools });
      report(`VS Code lists ${ours.length} atom tools; their tools/list is ${Buffer.byteLength(listed)} bytes with apps and icons`);
      for (const tool of tools) {
        assert.match(tool.icons?.[0]?.src ?? '', /^data:image\/svg\+xml,/, `${tool.name} has an inline SVG icon`);
        assert.equal(tool.icons?.[0]?.mimeType, 'image/svg+xml', 'VS Code ignores a data: icon without its type');
        const app = (tool._meta as { ui?: { resourceUri?: string } } | undefined)?.ui?.resourceUri;
        assert.equal(app, TOOL_APPS[tool.name], `${tool.name}'s app`);
      }
      assert.match((client.getServerVersion()?.icons?.[0]?.src as string | undefined) ?? '', /^data:image\/svg\+xml,/, 'the server has an icon');
      for (const uri of new Set(Object.values(TOOL_APPS))) {
        const page = (await client.readResource({ uri })).contents[0] as { mimeType?: string; text?: string };
        assert.equal(page.mimeType, 'text/html;profile=mcp-app', `${uri} is an MCP App`);
        assert.match(page.text ?? '', /Content-Security-Policy/, `${uri} is the built page (dist/apps/ ships in the .vsix)`);
      }
    } finally {
      await client.close();
    }
  });
});
