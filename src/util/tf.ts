/**
 * The type of the tfjs namespace the scorer's training code is given. Pure code takes it as a parameter; the
 * runtime (which backend, loaded how) is chosen by `getTf()` in adapters/tf.ts.
 */
export type Tf = typeof import("@tensorflow/tfjs");
