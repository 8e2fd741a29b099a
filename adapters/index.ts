/**
 * Everything that touches the outside world: embedding providers, dataset loaders,
 * artifact files and stores. The library in `src/` stays free of network and disk I/O.
 */
export { getTf } from "./tf.js";
