/**
 * Proves UseLiteEncoder (our tokenizer + the project's tfjs) equals the reference
 * @energetic-ai/embeddings (its own tokenizer + bundled tfjs-core 4.5), run in a child process.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { UseLiteEncoder } from "../../adapters/encoders/use-lite.js";
import { parityTexts } from "./fixtures/parity-texts.js";
import { referenceEmbed } from "./reference.js";

describe("UseLiteEncoder parity with @energetic-ai/embeddings", () => {
  let encoder: UseLiteEncoder;
  let reference: { tokens: number[][]; vectors: number[][] | null };

  beforeAll(async () => {
    [encoder, reference] = await Promise.all([
      UseLiteEncoder.load({ cacheSize: 0 }),
      referenceEmbed(parityTexts, true),
    ]);
  });

  it("covers at least 100 varied texts, some past the 128-token cap", () => {
    expect(parityTexts.length).toBeGreaterThanOrEqual(100);
    expect(reference.tokens.filter((t) => t.length > 128).length).toBeGreaterThanOrEqual(5);
  });

  it("produces identical token ids for every text", () => {
    parityTexts.forEach((text, i) => {
      expect(encoder.tokenizer.encode(text), JSON.stringify(text.slice(0, 80))).toEqual(reference.tokens[i]);
    });
  });

  it("produces the same vectors (max |difference| < 1e-4), batched and sorted by length", async () => {
    const { vectors, details } = await encoder.embedDetailed([...parityTexts]);
    let worst = 0;
    let worstText = "";
    parityTexts.forEach((text, i) => {
      const ours = vectors[i]!;
      const theirs = reference.vectors![i]!;
      expect(ours.length).toBe(512);
      expect(theirs.length).toBe(512);
      for (let d = 0; d < 512; d++) {
        const diff = Math.abs(ours[d]! - theirs[d]!);
        if (!(diff <= worst)) {
          worst = diff;
          worstText = text;
        }
      }
      expect(details[i]!.tokens).toBe(reference.tokens[i]!.length);
      expect(details[i]!.truncated).toBe(reference.tokens[i]!.length > 128);
    });
    console.info(`USE-lite parity: max |difference| ${worst.toExponential(2)} over ${parityTexts.length} texts x 512`);
    expect(worst, `worst text: ${JSON.stringify(worstText.slice(0, 80))}`).toBeLessThan(1e-4);
  });
});
