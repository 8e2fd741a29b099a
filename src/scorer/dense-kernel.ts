/**
 * The scorer's dense layers in WebAssembly, for weights that live in a WebAssembly memory (an arena).
 *
 * Why: a fresh process runs its first mixture-of-experts forward (about 210,000 multiply-adds for the shipped scorer)
 * in V8's interpreter, 31-38 ms on a loaded 2-core VM, and the next one or two before the optimizing compiler takes
 * over; the same forward through this kernel takes 3-5 ms on its first call there (most of it compiling and touching
 * fresh memory), and is no slower once warm. The kernel adds in the order {@link denseForward} adds, in float64, so
 * both give the same float32 bits.
 *
 * Weights in an arena use it, in place: a loaded scorer's (read or copied into one by weights-file.ts) and
 * {@link inArena}'s copies. Weights built or trained in the process stay plain typed arrays that their owner may
 * change, and use {@link denseForward}. Where WebAssembly is missing, may not compile code (some edge runtimes) or
 * cannot reserve a memory (a tight virtual-memory limit), {@link weightsArena} hands out plain memory and the layers
 * run in TypeScript, with the same results.
 *
 * @module
 */
import { DENSE_KERNEL_WASM } from "./dense-kernel-wasm.js";
import { denseForward } from "./expert.js";
import { denseLayersOf, mapTensors, tensorFloats, type DenseWeights, type IrtMoeWeights } from "./weights.js";

/** y = x W + b for one vector, as {@link denseForward}. */
export type DenseFn = (layer: DenseWeights, x: Float32Array, out?: Float32Array) => Float32Array;

const PAGE_BYTES = 65_536;
/** Room an arena keeps after its contents for the kernel's input, output and float64 sums. */
const SCRATCH_BYTES = PAGE_BYTES;

type DenseExport = (w: number, b: number, x: number, out: number, acc: number, inDim: number, outDim: number) => void;

/** What the kernel uses of the WebAssembly API (typed here: the package's TypeScript lib has no DOM types). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: { env: { memory: WasmMemory } }) => { exports: { dense: DenseExport } };
  Memory: new (descriptor: { initial: number }) => WasmMemory;
}

let compiled: { wasm: WasmApi; module: object } | null | undefined;

/** The compiled kernel, or null where WebAssembly is missing or may not compile code. */
function kernelModule(): { wasm: WasmApi; module: object } | null {
  if (compiled === undefined) {
    compiled = null;
    const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
    try {
      if (wasm) {
        const text = atob(DENSE_KERNEL_WASM);
        const bytes = new Uint8Array(text.length);
        for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
        compiled = { wasm, module: new wasm.Module(bytes) };
      }
    } catch {
      // Code generation disallowed by the runtime: the TypeScript path, same results.
    }
  }
  return compiled;
}

/** The memory behind each buffer {@link weightsArena} handed out, and how many bytes it handed out (the kernel's
 * scratch starts after them: the file read there may hold more than the dense layers, theta for one). */
const arenas = new WeakMap<ArrayBufferLike, { memory: WasmMemory; used: number }>();

/**
 * `byteLength` bytes (zeroed) to read a weights file into, at offset 0 of a WebAssembly memory with room for the
 * kernel after them; plain memory where WebAssembly is unavailable. Tensors decoded as views of these bytes run
 * through the kernel.
 *
 * @example
 * const bytes = weightsArena(size); // then read the file into `bytes` and decode views of it
 */
export function weightsArena(byteLength: number): Uint8Array {
  const kernel = kernelModule();
  if (!kernel) return new Uint8Array(byteLength);
  let memory: WasmMemory;
  try {
    memory = new kernel.wasm.Memory({ initial: Math.ceil((byteLength + SCRATCH_BYTES) / PAGE_BYTES) });
  } catch {
    // A WebAssembly memory reserves gigabytes of address space; under a virtual-memory limit it cannot: plain memory.
    return new Uint8Array(byteLength);
  }
  arenas.set(memory.buffer, { memory, used: byteLength });
  return new Uint8Array(memory.buffer, 0, byteLength);
}

/**
 * A copy of `weights` held in one arena, as a loaded scorer's are, so that its dense layers run in the kernel.
 *
 * @example
 * const fast = inArena(initWeights(rng, shape, ids));
 */
export function inArena(weights: IrtMoeWeights): IrtMoeWeights {
  const bytes = weightsArena(tensorFloats(weights) * 4);
  let at = 0;
  return mapTensors(weights, (a) => {
    const view = new Float32Array(bytes.buffer, bytes.byteOffset + at * 4, a.length);
    view.set(a);
    at += a.length;
    return view;
  });
}

const kernels = new WeakMap<IrtMoeWeights, DenseFn>();

/**
 * The dense-layer function for `weights`: the WebAssembly kernel when every layer is a view of one arena with room
 * for its scratch, else {@link denseForward}. Cached per weights object.
 *
 * @example
 * const dense = denseFor(weights);
 * const h = dense(weights.shared.l1, x);
 */
export function denseFor(weights: IrtMoeWeights): DenseFn {
  let dense = kernels.get(weights);
  if (!dense) {
    dense = arenaKernel(weights) ?? denseForward;
    kernels.set(weights, dense);
  }
  return dense;
}

function arenaKernel(weights: IrtMoeWeights): DenseFn | undefined {
  const kernel = kernelModule();
  const layers = denseLayersOf(weights);
  const buffer = layers[0]?.W.buffer;
  const arena = buffer && arenas.get(buffer);
  if (!kernel || !arena || arena.memory.buffer !== buffer) return undefined;
  const { memory, used } = arena;
  let maxIn = 0;
  let maxOut = 0;
  for (const l of layers) {
    if (l.W.buffer !== buffer || l.b.buffer !== buffer) return undefined;
    if (l.W.length !== l.inDim * l.outDim || l.b.length !== l.outDim) return undefined;
    maxIn = Math.max(maxIn, l.inDim);
    maxOut = Math.max(maxOut, l.outDim);
  }
  const accAt = Math.ceil(used / 8) * 8;
  const xAt = accAt + 8 * maxOut;
  const outAt = xAt + 4 * maxIn;
  if (outAt + 4 * maxOut > buffer.byteLength) return undefined;
  let run: DenseExport;
  try {
    run = new kernel.wasm.Instance(kernel.module, { env: { memory } }).exports.dense;
  } catch {
    return undefined;
  }
  const heap = new Float32Array(buffer);
  return (layer, x, out = new Float32Array(layer.outDim)) => {
    const { inDim, outDim, W, b } = layer;
    // A layer that is not (or no longer) a view of this arena, a short bias or output, or an input that is not
    // float32 (the kernel would round it) or too short takes the TypeScript path.
    if (
      W.buffer !== buffer ||
      b.buffer !== buffer ||
      inDim > maxIn ||
      outDim > maxOut ||
      W.length !== inDim * outDim ||
      b.length < outDim ||
      out.length < outDim ||
      !(x instanceof Float32Array) ||
      x.length < inDim
    )
      return denseForward(layer, x, out);
    heap.set(x.length === inDim ? x : x.subarray(0, inDim), xAt / 4);
    run(W.byteOffset, b.byteOffset, xAt, outAt, accAt, inDim, outDim);
    out.set(heap.subarray(outAt / 4, outAt / 4 + outDim));
    return out;
  };
}
