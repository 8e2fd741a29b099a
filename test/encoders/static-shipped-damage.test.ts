/**
 * The shipped static encoder is loaded without its manifest's schema (the test suite checks it instead). A damaged
 * shipped manifest must still fail with the typed error naming the file, not a bare TypeError from the unchecked path:
 * StaticEncoder.load() then loads again with every check. The damage is simulated by serving altered bytes for the
 * shipped manifest.json (the package's own files are not touched).
 */
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";

const damage = vi.hoisted(() => ({ edit: undefined as ((json: Record<string, unknown>) => void) | undefined }));

vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  const readFile = (async (file: Parameters<typeof actual.readFile>[0], ...rest: unknown[]) => {
    const bytes = await (actual.readFile as (...a: unknown[]) => Promise<Buffer>)(file, ...rest);
    if (!damage.edit || typeof file !== "string" || !file.endsWith(join("encoders", "static", "manifest.json")))
      return bytes;
    const json = JSON.parse(bytes.toString("utf8")) as Record<string, unknown>;
    damage.edit(json);
    return Buffer.from(JSON.stringify(json));
  }) as typeof actual.readFile;
  return { ...actual, readFile, default: { ...actual, readFile } };
});

const { StaticEncoder } = await import("../../adapters/encoders/static.js");
const { EncoderUnavailableError } = await import("../../src/errors.js");

afterEach(() => (damage.edit = undefined));

describe("a damaged shipped static encoder manifest", () => {
  it("without its table entry: the typed error naming the file and the field", async () => {
    damage.edit = (json) => delete json.table;
    const error = await StaticEncoder.load().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EncoderUnavailableError);
    expect((error as Error).message).toMatch(
      /encoders\/static\/manifest\.json is not a static encoder manifest: table/,
    );
  });

  it("with a dtype it does not know: the typed error, not a RangeError", async () => {
    damage.edit = (json) => (json.dtype = "int4");
    const error = await StaticEncoder.load().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EncoderUnavailableError);
    expect((error as Error).message).toMatch(/manifest\.json is not a static encoder manifest: dtype/);
  });

  it("intact, it loads (the damage is what fails above)", async () => {
    const encoder = await StaticEncoder.load();
    expect((await encoder.embed(["hello"]))[0]!.length).toBe(encoder.dim);
  });
});
