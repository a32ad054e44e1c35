// Stands in for wink-nlp, its English model and wink-bm25-text-search in the bundles. vectra's
// LocalIndex imports them for its BM25 hybrid, which Atomic Coding never calls (MiniSearch ranks
// words instead); bundling them added about 3.5 MiB to each bundle. Calling this says why it fails.
module.exports = function vectraBm25Unavailable() {
  throw new Error('vectra BM25 is not bundled with Atomic Coding: words are ranked by the MiniSearch index');
};
