// Stands in for protobufjs in the bundles. vectra requires it only when an index uses its
// ProtobufCodec, which Atomic Coding never does (search/vectorIndex.ts gives vectra its own codec);
// bundled, its 260 KB of source stayed in memory in every process. Using it says why it fails.
throw new Error('protobufjs is not bundled with Atomic Coding: the vector index keeps its own codec');
