/** The product's version, from package.json (inlined by esbuild when bundled). */
import pkg from '../package.json';

export const VERSION: string = pkg.version;
/** The name agents know the server by: the MCP server's own name and its entry in their config files. */
export const SERVER_NAME = 'atomic-coding';
