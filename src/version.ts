/** The product's version, from package.json (inlined by esbuild when bundled). */
import pkg from '../package.json';

export const VERSION: string = pkg.version;
export const SERVER_NAME = 'atomic-coding';
