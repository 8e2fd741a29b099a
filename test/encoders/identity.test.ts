import { describe, expect, it } from "vitest";
import { assertSameEncoder, encoderInfo, sameEncoder } from "../../src/encoders/identity.js";
import { EncoderMismatchError, ValidationError } from "../../src/errors.js";
import { thrownBy } from "../errors.js";
import type { QueryEncoder } from "../../src/encoders/types.js";

const encoder: QueryEncoder = {
  id: "test-encoder@1",
  dim: 4,
  embed: async (texts) => texts.map(() => new Float32Array(4)),
};

describe("encoderInfo", () => {
  it("returns a plain JSON record of id and dim only", () => {
    const info = encoderInfo(encoder);
    expect(info).toEqual({ id: "test-encoder@1", dim: 4 });
    expect(JSON.parse(JSON.stringify(info))).toEqual(info);
    expect(Object.keys(info).sort()).toEqual(["dim", "id"]);
  });

  it("rejects an empty id or a non-integer dim with a ValidationError naming the field", () => {
    expect(() => encoderInfo({ id: " ", dim: 4 })).toThrow(ValidationError);
    try {
      encoderInfo({ id: "x", dim: 3.5 });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).path).toBe("encoder.dim");
    }
  });
});

describe("assertSameEncoder", () => {
  it("accepts the same id and dim", () => {
    expect(() => assertSameEncoder({ id: "a", dim: 8 }, { id: "a", dim: 8 })).not.toThrow();
    expect(sameEncoder({ id: "a", dim: 8 }, { id: "a", dim: 8 })).toBe(true);
  });

  it("names both ids and dims when the id differs", () => {
    try {
      assertSameEncoder({ id: "use-lite-512", dim: 512 }, { id: "huggingface:bge", dim: 384 }, "scorer");
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(EncoderMismatchError);
      const e = err as EncoderMismatchError;
      expect(e.code).toBe("ENCODER_MISMATCH");
      expect(e.message).toContain('"use-lite-512" (dim 512)');
      expect(e.message).toContain('"huggingface:bge" (dim 384)');
      expect(e.message).toContain("scorer");
      expect(e.expected).toEqual({ id: "use-lite-512", dim: 512 });
      expect(e.actual).toEqual({ id: "huggingface:bge", dim: 384 });
    }
  });

  it("rejects the same id with a different dim", () => {
    expect(() => assertSameEncoder({ id: "a", dim: 8 }, { id: "a", dim: 16 })).toThrow(EncoderMismatchError);
    expect(sameEncoder({ id: "a", dim: 8 }, { id: "a", dim: 16 })).toBe(false);
  });

  it("carries the file, the path and the hint it is given", () => {
    const e = thrownBy(EncoderMismatchError, () =>
      assertSameEncoder({ id: "a", dim: 8 }, { id: "b", dim: 8 }, "scorer", {
        file: "/x/manifest.json",
        path: "options.model",
        hint: "Do this.",
      }),
    );
    expect(e).toMatchObject({ file: "/x/manifest.json", path: "options.model" });
    expect(e.message).toMatch(/^\/x\/manifest\.json records encoder "a" \(dim 8\).* "b" \(dim 8\)\. Do this\.$/);
  });

  it("validates a malformed recorded identity instead of comparing garbage", () => {
    expect(() => assertSameEncoder({ id: "", dim: 8 } as never, { id: "a", dim: 8 }, "probe bank")).toThrow(
      /probe bank\.encoder\.id/,
    );
  });
});
