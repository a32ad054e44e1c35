/**
 * vectra, by path. Its package exports only its root, which pulls in grpc, cheerio, turndown
 * and a language model (8.9 MB bundled); the two modules used here bundle to a fraction of that.
 */
export { LocalIndex } from '../../node_modules/vectra/lib/LocalIndex.js';
export { VirtualFileStorage } from '../../node_modules/vectra/lib/storage/VirtualFileStorage.js';
export type { IndexData, IndexItem, MetadataFilter, MetadataTypes } from '../../node_modules/vectra/lib/types.js';
export type { DocumentCatalog, IndexCodec } from '../../node_modules/vectra/lib/codecs/IndexCodec.js';
