/**
 * `weights.bin` of a scorer artifact: the tensors of the IRT-MoE weights back to back, little-endian float32,
 * row-major, each at a byte offset that is a multiple of 4, found through the manifest's tensor table.
 */
import { ArtifactError } from "../errors.js";
import { CATALOG_FILE, WEIGHTS_FILE } from "./artifact-names.js";
import { weightsArena } from "./dense-kernel.js";
import type { ScorerManifest, TensorEntry } from "./manifest-schema.js";
import type { DenseWeights, ExpertWeights, IrtMoeWeights } from "./weights.js";

/** Names and shapes of every tensor, in file order. */
export function tensorLayout(w: IrtMoeWeights): { name: string; shape: number[]; data: Float32Array }[] {
  const out: { name: string; shape: number[]; data: Float32Array }[] = [];
  const dense = (prefix: string, d: DenseWeights) => {
    out.push(
      { name: `${prefix}.W`, shape: [d.inDim, d.outDim], data: d.W },
      { name: `${prefix}.b`, shape: [d.outDim], data: d.b },
    );
  };
  const expert = (prefix: string, e: ExpertWeights) => {
    dense(`${prefix}.l1`, e.l1);
    dense(`${prefix}.l2`, e.l2);
  };
  w.experts.forEach((e, k) => expert(`experts.${k}`, e));
  expert("shared", w.shared);
  dense("gate", w.gate);
  dense("alpha", w.alpha);
  dense("beta", w.beta);
  out.push({ name: "theta", shape: [w.models.length, w.alpha.outDim], data: w.theta });
  return out;
}

/** Encodes the weights as little-endian float32 with a tensor table. */
export function encodeWeights(w: IrtMoeWeights): { bytes: Uint8Array; tensors: TensorEntry[] } {
  const layout = tensorLayout(w);
  const total = layout.reduce((s, t) => s + t.data.length * 4, 0);
  const bytes = new Uint8Array(total);
  const view = new DataView(bytes.buffer);
  const tensors: TensorEntry[] = [];
  let offset = 0;
  for (const t of layout) {
    tensors.push({ name: t.name, shape: t.shape, offset });
    for (let i = 0; i < t.data.length; i++) view.setFloat32(offset + i * 4, t.data[i]!, true);
    offset += t.data.length * 4;
  }
  return { bytes, tensors };
}

/**
 * Decodes `weights.bin` with the manifest's tensor table and architecture. Throws ArtifactError
 * (ARTIFACT_FORMAT) naming the file and the tensor when a tensor is missing, misshapen, out of bounds
 * or not finite.
 *
 * The tensors are views of one WebAssembly arena (dense-kernel.ts), so the scorer's dense layers run in its kernel.
 * `shipped`: the bytes are the package's own `pretrained/` file, just read (into an arena) and held by nothing else:
 * its tensors are views of them and are not scanned for non-finite values, since the test suite checks the file's
 * sha256 against its manifest (test/scorer/shipped-files.test.ts). Other bytes are copied into an arena once and
 * scanned. Shapes and bounds are checked always.
 */
export function decodeWeights(
  bytes: Uint8Array,
  manifest: ScorerManifest,
  models: readonly string[],
  file = WEIGHTS_FILE,
  shipped = false,
): IrtMoeWeights {
  const { inDim, experts, hidden, out, abilityDim, nModels } = manifest.architecture;
  const reader = new TensorReader(bytes, manifest, file, shipped);
  const dense = (prefix: string, i: number, o: number): DenseWeights => ({
    inDim: i,
    outDim: o,
    W: reader.read(`${prefix}.W`, [i, o]),
    b: reader.read(`${prefix}.b`, [o]),
  });
  const expert = (prefix: string): ExpertWeights => ({
    l1: dense(`${prefix}.l1`, inDim, hidden),
    l2: dense(`${prefix}.l2`, hidden, out),
  });
  if (models.length !== nModels)
    throw new ArtifactError(
      "ARTIFACT_FORMAT",
      `catalog has ${models.length} models but the manifest's architecture says ${nModels}.`,
      { file: CATALOG_FILE },
    );
  const weights: IrtMoeWeights = {
    inDim,
    experts: Array.from({ length: experts }, (_, k) => expert(`experts.${k}`)),
    shared: expert("shared"),
    gate: dense("gate", inDim, experts),
    alpha: dense("alpha", out, abilityDim),
    beta: dense("beta", out, 1),
    models: [...models],
    theta: reader.read("theta", [nModels, abilityDim]),
  };
  reader.checkAllUsed(experts);
  return weights;
}

/** The platform stores floats little-endian, as weights.bin does (every platform Node ships for but s390x). */
const LITTLE_ENDIAN = new Uint8Array(Float32Array.of(1).buffer)[3] === 0x3f;

/** Reads the tensors of `weights.bin` by name, each checked against the tensor table and the architecture. */
class TensorReader {
  private readonly table = new Map<string, TensorEntry>();
  private readonly used = new Set<string>();
  private readonly view: DataView;

  private readonly bytes: Uint8Array;

  constructor(
    bytes: Uint8Array,
    private readonly manifest: ScorerManifest,
    private readonly file: string,
    private readonly shipped: boolean,
  ) {
    // The tensors are views of one arena (dense-kernel.ts), where the kernel runs them: the shipped file was read
    // into one; any other is copied into one here, once (the caller's bytes stay theirs).
    if (shipped) this.bytes = bytes;
    else {
      this.bytes = weightsArena(bytes.byteLength);
      this.bytes.set(bytes);
    }
    for (const [k, t] of manifest.weights.tensors.entries()) {
      if (this.table.has(t.name))
        throw new ArtifactError(
          "ARTIFACT_FORMAT",
          `${file}: tensor "${t.name}" is listed twice in the manifest's tensor table.`,
          { file, path: `manifest.weights.tensors.${k}.name` },
        );
      this.table.set(t.name, t);
    }
    this.view = new DataView(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength);
  }

  /** The tensor `name` of shape `shape`; an ArtifactError when it is missing, misshapen, out of bounds or not finite. */
  read(name: string, shape: number[]): Float32Array {
    const { file, bytes } = this;
    const t = this.table.get(name);
    if (!t)
      throw new ArtifactError(
        "ARTIFACT_FORMAT",
        `${file}: tensor "${name}" is missing from the manifest's tensor table.`,
        { file },
      );
    this.used.add(name);
    if (t.shape.length !== shape.length || t.shape.some((s, i) => s !== shape[i]))
      throw new ArtifactError(
        "ARTIFACT_FORMAT",
        `${file}: tensor "${name}" has shape [${t.shape}] but the architecture needs [${shape}].`,
        { file },
      );
    const n = shape.reduce((a, b) => a * b, 1);
    if (t.offset % 4 !== 0 || t.offset + n * 4 > bytes.byteLength)
      throw new ArtifactError(
        "ARTIFACT_FORMAT",
        `${file}: tensor "${name}" (offset ${t.offset}, ${n * 4} bytes) lies outside the file (${bytes.byteLength} bytes).`,
        { file },
      );
    // Views, not copies (a fresh process pays ~3 ms per MB of new memory on a small VM); a big-endian platform, or
    // shipped bytes handed in at an unaligned offset, get a copy, which runs in TypeScript.
    let a: Float32Array;
    if (LITTLE_ENDIAN && (bytes.byteOffset + t.offset) % 4 === 0) {
      a = new Float32Array(bytes.buffer, bytes.byteOffset + t.offset, n);
      if (this.shipped) return a;
    } else {
      a = new Float32Array(n);
      for (let i = 0; i < n; i++) a[i] = this.view.getFloat32(t.offset + i * 4, true);
    }
    // One pass that only compares (the shipped weights' sha256 test covers theirs).
    for (let i = 0; i < n; i++) {
      if (!Number.isFinite(a[i]!))
        throw new ArtifactError(
          "ARTIFACT_FORMAT",
          `${file}: tensor "${name}" holds a non-finite value at index ${i}.`,
          {
            file,
          },
        );
    }
    return a;
  }

  /** An ArtifactError when the tensor table lists a tensor the architecture has no place for. */
  checkAllUsed(experts: number): void {
    const unused = [...this.table.keys()].filter((name) => !this.used.has(name));
    if (unused.length === 0) return;
    const { file } = this;
    throw new ArtifactError(
      "ARTIFACT_FORMAT",
      `${file}: the manifest's tensor table lists ${unused.map((n) => `"${n}"`).join(", ")}, which the architecture (${experts} experts) has no place for; the manifest does not match the weights.`,
      {
        file,
        path: `manifest.weights.tensors.${this.manifest.weights.tensors.findIndex((t) => t.name === unused[0])}.name`,
        details: { unused },
      },
    );
  }
}
