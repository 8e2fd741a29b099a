/**
 * The files shipped inside the package (the pretrained scorers and the static encoder's table) are loaded without
 * hashing them (they are part of the install like the code; see decodeShippedArtifact and StaticEncoder.load): this
 * suite checks their sha256 against their manifests instead, and that the shipped load path still refuses a truncated
 * file. Their manifests and catalogs are not checked against their schemas at load either: this suite parses them, and
 * checks that the parse returns each file's JSON unchanged (no key stripped, no default added), so the shipped path,
 * which uses the JSON as it is, gives what the checking path gives.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pretrainedDir, STATIC_PRETRAINED_SUBDIR } from "../../adapters/artifact/index.js";
import { defaultStaticDir } from "../../adapters/encoders/static.js";
import { decodeArtifact, decodeShippedArtifact } from "../../src/scorer/artifact.js";
import { catalogSchema } from "../../src/scorer/catalog-file.js";
import { scorerManifestSchema } from "../../src/scorer/manifest-schema.js";
import { manifestChecksum } from "../../src/scorer/serialize.js";
import { staticManifestSchema } from "../../adapters/encoders/static.js";
import { ArtifactError } from "../../src/errors.js";
import { thrownBy } from "../errors.js";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const read = (dir: string, file: string) => new Uint8Array(readFileSync(join(dir, file)));

describe("the files shipped inside the package", () => {
  for (const dir of [pretrainedDir(), join(pretrainedDir(), STATIC_PRETRAINED_SUBDIR)]) {
    it(`${dir.slice(dir.indexOf("pretrained"))}: weights.bin and catalog.json match their manifest's sha256`, () => {
      const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as Record<
        "weights" | "catalog",
        { byteLength: number; sha256: string }
      >;
      for (const [key, file] of [
        ["weights", "weights.bin"],
        ["catalog", "catalog.json"],
      ] as const) {
        const bytes = read(dir, file);
        expect(bytes.byteLength, file).toBe(manifest[key].byteLength);
        expect(sha256(bytes), file).toBe(manifest[key].sha256);
      }
      // and the checking decoder, which hashes them, accepts the artifact
      const files = {
        manifest: read(dir, "manifest.json"),
        weights: read(dir, "weights.bin"),
        catalog: read(dir, "catalog.json"),
      };
      expect(decodeArtifact(files).weights.theta.length).toBeGreaterThan(0);
    });
  }

  for (const dir of [pretrainedDir(), join(pretrainedDir(), STATIC_PRETRAINED_SUBDIR)]) {
    it(`${dir.slice(dir.indexOf("pretrained"))}: manifest.json and catalog.json fit their schemas as they are`, () => {
      const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as { manifestSha256: string };
      expect(manifestChecksum(manifest)).toBe(manifest.manifestSha256);
      expect(scorerManifestSchema.parse(manifest)).toEqual(manifest);
      const catalog = JSON.parse(readFileSync(join(dir, "catalog.json"), "utf8")) as unknown;
      expect(catalogSchema.parse(catalog)).toEqual(catalog);
      // so the shipped decoder, which skips both parses, reads the same manifest and catalog as the checking one
      const files = () => ({
        manifest: read(dir, "manifest.json"),
        weights: read(dir, "weights.bin"),
        catalog: read(dir, "catalog.json"),
      });
      const shipped = decodeShippedArtifact(files(), (f) => join(dir, f));
      const checked = decodeArtifact(files());
      expect(shipped.manifest).toEqual(checked.manifest);
      expect(shipped.catalog).toEqual(checked.catalog);
    });
  }

  it("encoders/static: the manifest fits its schema as it is", () => {
    const manifest = JSON.parse(readFileSync(join(defaultStaticDir(), "manifest.json"), "utf8")) as unknown;
    expect(staticManifestSchema.parse(manifest)).toEqual(manifest);
  });

  it("encoders/static: the table and the vocabulary match their manifest's sha256", () => {
    const dir = defaultStaticDir();
    const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as Record<
      "table" | "vocabulary",
      { file: string; bytes: number; sha256: string }
    >;
    for (const entry of [manifest.table, manifest.vocabulary]) {
      const bytes = read(dir, entry.file);
      expect(bytes.byteLength, entry.file).toBe(entry.bytes);
      expect(sha256(bytes), entry.file).toBe(entry.sha256);
    }
  });

  it("the shipped load path keeps the weights where they were read, with the checking decoder's values", () => {
    const dir = join(pretrainedDir(), STATIC_PRETRAINED_SUBDIR);
    const files = () => ({
      manifest: read(dir, "manifest.json"),
      weights: read(dir, "weights.bin"),
      catalog: read(dir, "catalog.json"),
    });
    const shippedFiles = files();
    const shipped = decodeShippedArtifact(shippedFiles, (f) => join(dir, f)).weights;
    const checkedFiles = files();
    const checked = decodeArtifact(checkedFiles).weights;
    // views of the bytes read (no second copy) on the shipped path; copies on the checking path (bytes of the user's)
    expect(shipped.theta.buffer).toBe(shippedFiles.weights.buffer);
    expect(shipped.experts[0]!.l1.W.buffer).toBe(shippedFiles.weights.buffer);
    expect(checked.theta.buffer).not.toBe(checkedFiles.weights.buffer);
    expect(Array.from(shipped.theta)).toEqual(Array.from(checked.theta));
    expect(Array.from(shipped.gate.W)).toEqual(Array.from(checked.gate.W));
    expect(Array.from(shipped.experts.at(-1)!.l2.b)).toEqual(Array.from(checked.experts.at(-1)!.l2.b));
  });

  it("the shipped load path refuses a changed manifest.json or catalog.json (their checksums), naming the file", () => {
    const dir = join(pretrainedDir(), STATIC_PRETRAINED_SUBDIR);
    const where = (f: string) => join(dir, f);
    const edited = (file: string, edit: (json: Record<string, unknown>) => void) => {
      const json = JSON.parse(readFileSync(join(dir, file), "utf8")) as Record<string, unknown>;
      edit(json);
      return new TextEncoder().encode(JSON.stringify(json, null, 1));
    };
    const files = {
      manifest: edited("manifest.json", (m) => (m.temperature = 5)),
      weights: read(dir, "weights.bin"),
      catalog: read(dir, "catalog.json"),
    };
    const changed = thrownBy(ArtifactError, () => decodeShippedArtifact(files, where));
    expect(changed.code).toBe("ARTIFACT_INTEGRITY");
    expect(changed.message).toMatch(/manifest\.json is corrupted: the sha256 of its content/);
    const catalog = edited("catalog.json", (c) => ((c.models as { aliases: unknown }[])[0]!.aliases = {}));
    const reformatted = { ...files, manifest: read(dir, "manifest.json"), catalog };
    const damaged = thrownBy(ArtifactError, () => decodeShippedArtifact(reformatted, where));
    expect(damaged.code).toBe("ARTIFACT_INTEGRITY");
    expect(damaged.message).toMatch(/catalog\.json is/);
  });

  it("the shipped load path refuses a truncated weights.bin by its length, naming the file", () => {
    const dir = join(pretrainedDir(), STATIC_PRETRAINED_SUBDIR);
    const files = {
      manifest: read(dir, "manifest.json"),
      weights: read(dir, "weights.bin").subarray(0, -4),
      catalog: read(dir, "catalog.json"),
    };
    const where = (f: string) => join(dir, f);
    const error = thrownBy(ArtifactError, () => decodeShippedArtifact(files, where));
    expect(error.code).toBe("ARTIFACT_INTEGRITY");
    expect(error.message).toMatch(/weights\.bin is \d+ bytes but manifest\.json records \d+: the file is truncated/);
  });
});
