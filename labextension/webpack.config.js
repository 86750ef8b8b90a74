// Merged by @jupyterlab/builder into its production config.
// Webpack's default "deterministic" module ids hash each module's identifier, and the
// federated container's identifier holds the absolute path of lib/index.js: a build in
// another checkout then differs, and the staleness check in scripts/check_labextension.sh
// (a rebuild in CI's fresh clone, compared with the committed bundle) could never pass.
// "natural" ids depend only on the module graph, so the bundle is the same wherever it is built.
module.exports = {
  optimization: {
    moduleIds: 'natural',
    chunkIds: 'natural'
  }
};
