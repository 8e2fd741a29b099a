import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ValidationError } from "../../src/errors.js";
import { parseWith } from "../../src/util/validate.js";
import { thrownBy } from "../errors.js";

const schema = z
  .object({
    snapshotEvery: z.number().int().default(1000),
    retry: z.object({ attempts: z.number(), backoffMs: z.number() }).strict().optional(),
  })
  .strict();

describe("parseWith", () => {
  it("names a bad value by its dotted path", () => {
    const error = thrownBy(ValidationError, () => parseWith(schema, { snapshotEvery: 1.5 }, "StoreOptions"));
    expect(error.path).toBe("StoreOptions.snapshotEvery");
  });

  it("reports an unknown key at its own path with the closest known key", () => {
    const error = thrownBy(ValidationError, () => parseWith(schema, { snapshotEvry: 10 }, "StoreOptions"));
    expect(error.path).toBe("StoreOptions.snapshotEvry");
    expect(error.message).toContain('unknown key "snapshotEvry"; did you mean "snapshotEvery"?');
  });

  it("finds the closest known key through a schema built on first use (z.lazy), at the top and nested", () => {
    const lazy = z.lazy(() => z.strictObject({ retry: z.lazy(() => schema.shape.retry), costWeight: z.number() }));
    const top = thrownBy(ValidationError, () => parseWith(lazy, { costWieght: 1 }, "options"));
    expect(top.message).toContain('unknown key "costWieght"; did you mean "costWeight"?');
    const nested = thrownBy(ValidationError, () => parseWith(lazy, { costWeight: 1, retry: { atempts: 2 } }, "o"));
    expect(nested.message).toContain('o.retry.atempts: unknown key "atempts"; did you mean "attempts"?');
  });

  it("lists the known keys when no key is close, for nested objects too, and reports every unknown key", () => {
    const error = thrownBy(ValidationError, () =>
      parseWith(schema, { retry: { attempts: 2, backoffMs: 5, jitter: true }, verbose: 1 }, "opts"),
    );
    const paths = (error.details as { issues: { path: string }[] }).issues.map((i) => i.path).sort();
    expect(paths).toEqual(["opts.retry.jitter", "opts.verbose"]);
    expect(error.message).toContain('opts.retry.jitter: unknown key "jitter"; the known keys are attempts, backoffMs');
    expect(error.message).toContain("the known keys are snapshotEvery, retry");
  });

  it("finds the known keys through a discriminated union and a transform, and reports unknown keys first", () => {
    const union = z.discriminatedUnion("kind", [
      z.object({ kind: z.literal("cost-aware"), lambda: z.number().optional() }).strict(),
      z.object({ kind: z.literal("budget"), maxUsdPerRun: z.number(), pressure: z.number().optional() }).strict(),
    ]);
    const piped = z
      .object({ lambda: z.number() })
      .strict()
      .transform((v) => v.lambda);
    const a = thrownBy(ValidationError, () =>
      parseWith(union, { kind: "budget", maxUsdPerRun: 1, presure: 2 }, "policy"),
    );
    expect(a.message).toContain('policy.presure: unknown key "presure"; did you mean "pressure"?');
    const b = thrownBy(ValidationError, () => parseWith(piped, { lamda: 2 }, "policy"));
    expect(b.path).toBe("policy.lamda"); // before the "lambda is required" issue it causes
    expect(b.message).toContain('did you mean "lambda"?');
    expect(b.details).toMatchObject({ unknown: ["policy.lamda"] });
  });
});

describe("parseWith's first parse of a schema (without zod's compiled fast path) and later ones (with it)", () => {
  it("give the same output and the same errors", () => {
    const fresh = () =>
      z
        .object({
          n: z.number().int().default(3),
          tags: z.array(z.string().transform((s) => s.toUpperCase())).optional(),
          inner: z.object({ a: z.number(), b: z.string().optional() }).strict().optional(),
        })
        .strict();
    const inputs: unknown[] = [
      {},
      { n: 5, tags: ["x", "y"], inner: { a: 1 } },
      { n: 1.5 },
      { inner: { a: "1", c: 2 } },
      { tags: [1] },
      "not an object",
    ];
    const outcome = (s: z.ZodType, v: unknown) => {
      try {
        return { ok: parseWith(s, v, "opts") as unknown };
      } catch (error) {
        const e = error as ValidationError;
        return { error: e.message, path: e.path, details: e.details };
      }
    };
    for (const input of inputs) {
      const s = fresh();
      const first = outcome(s, input); // first parse of this schema
      const later = [outcome(s, input), outcome(s, input)]; // compiled fast path
      expect(later).toEqual([first, first]);
    }
  });
});
