import { describe, expect, it } from "vitest";
import { UseLiteEncoder } from "../../adapters/encoders/use-lite.js";
import { EncoderUnavailableError } from "../../src/errors.js";

describe("UseLiteEncoder.dispose with calls in flight", () => {
  it("lets calls made before dispose finish, and refuses later ones with EncoderUnavailableError", async () => {
    const encoder = await UseLiteEncoder.load({ cacheSize: 4 });
    const running = encoder.embed(["a first text that is being embedded when dispose is called ".repeat(4)]);
    const queued = encoder.embed(["a second text, queued behind the first"]);
    encoder.dispose();
    const [a, b] = await Promise.all([running, queued]);
    for (const v of [a![0]!, b![0]!]) {
      expect(v.length).toBe(512);
      expect(v.every(Number.isFinite)).toBe(true);
    }
    await expect(encoder.embed(["after dispose"])).rejects.toBeInstanceOf(EncoderUnavailableError);
    expect(encoder.cacheStats.size).toBe(0);
  });
});
