/**
 * vectra, by path. Its package exports only its root, which pulls in grpc, cheerio, turndown
 * and a language model (8.9 MB bundled); the two modules used here bundle to ~4 MB.
 */
export { LocalIndex } from '../../../node_modules/vectra/lib/LocalIndex.js';
export { LocalFileStorage } from '../../../node_modules/vectra/lib/storage/LocalFileStorage.js';
export type { IndexData, IndexItem, MetadataFilter, MetadataTypes } from '../../../node_modules/vectra/lib/types.js';
export type { DocumentCatalog, IndexCodec } from '../../../node_modules/vectra/lib/codecs/IndexCodec.js';
