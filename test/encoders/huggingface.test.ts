import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  HuggingFaceEncoder,
  parseRetryAfter,
  type HuggingFaceEncoderOptions,
  type HuggingFaceRetryInfo,
} from "../../adapters/encoders/huggingface.js";
import { EmbeddingProviderError, EncoderInputError, ValidationError } from "../../src/errors.js";
import { rejectedWith } from "../errors.js";

const providerError = (promise: Promise<unknown>) => rejectedWith(EmbeddingProviderError, promise);

/** A scripted reply of the local feature-extraction server. */
interface Reply {
  status: number;
  body: string;
  headers?: Record<string, string>;
}
interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: { inputs?: unknown } & Record<string, unknown>;
}

const DIM = 4;
const json = (status: number, value: unknown, headers: Record<string, string> = {}): Reply => ({
  status,
  body: JSON.stringify(value),
  headers: { "content-type": "application/json", ...headers },
});
/** A deterministic vector per text, so tests can check order. */
const vectorFor = (text: string): number[] => Array.from({ length: DIM }, (_, j) => text.length + j / 10);

let server: Server;
let endpointUrl: string;
let seen: SeenRequest[] = [];
/** Replies served in order; when empty, `fallback` answers (default: a correct embedding). */
let script: Reply[] = [];
let fallback: ((req: SeenRequest) => Reply) | undefined;

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk: Buffer) => (raw += chunk.toString("utf8")));
    req.on("end", () => {
      const request: SeenRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: JSON.parse(raw || "{}"),
      };
      seen.push(request);
      const inputs = Array.isArray(request.body.inputs) ? (request.body.inputs as string[]) : [];
      const reply = script.shift() ?? fallback?.(request) ?? json(200, inputs.map(vectorFor));
      res.writeHead(reply.status, reply.headers ?? {});
      res.end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  endpointUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/embed`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen = [];
  script = [];
  fallback = undefined;
});

function encoder(extra: Partial<HuggingFaceEncoderOptions> = {}, retries?: HuggingFaceRetryInfo[]): HuggingFaceEncoder {
  return new HuggingFaceEncoder({
    model: "test-org/test-embedder",
    endpointUrl,
    accessToken: "hf_test_token",
    dim: DIM,
    maxRetries: 3,
    maxRetryWaitMs: 20,
    baseRetryDelayMs: 1,
    onRetry: retries ? (info) => retries.push(info) : undefined,
    ...extra,
  });
}

describe("HuggingFaceEncoder against a local feature-extraction server", () => {
  it("embeds a batch in order, batchSize texts per POST, with the token and the client's body shape", async () => {
    const texts = ["a", "bb", "ccc", "dddd", "eeeee"];
    const vectors = await encoder({ batchSize: 2 }).embed(texts);
    expect(vectors).toHaveLength(5);
    vectors.forEach((v, i) => {
      expect(v).toBeInstanceOf(Float32Array);
      expect(Array.from(v)).toEqual(Array.from(new Float32Array(vectorFor(texts[i]!))));
    });
    expect(seen.map((r) => r.body.inputs)).toEqual([["a", "bb"], ["ccc", "dddd"], ["eeeee"]]);
    for (const r of seen) {
      expect(r.method).toBe("POST");
      expect(r.url).toBe("/embed");
      expect(r.headers.authorization).toBe("Bearer hf_test_token");
      expect(r.headers["content-type"]).toBe("application/json");
    }
  });

  it("makes no request for an empty list and rejects non-string texts before sending", async () => {
    expect(await encoder().embed([])).toEqual([]);
    await expect(encoder().embed(["ok", 42 as unknown as string])).rejects.toThrow(EncoderInputError);
    expect(seen).toHaveLength(0);
  });

  it("401 is an EmbeddingProviderError with the status, no retry, and a message about the token", async () => {
    script = [json(401, { error: "Invalid credentials in Authorization header" })];
    const err = await providerError(encoder().embed(["x"]));
    expect(err.status).toBe(401);
    expect(err.code).toBe("EMBEDDING_PROVIDER");
    expect(err.message).toMatch(/accessToken/);
    expect(err.message).toMatch(/Invalid credentials/);
    expect(seen).toHaveLength(1);
  });

  it("403 is not retried either", async () => {
    script = [{ status: 403, body: "forbidden", headers: { "content-type": "text/plain; charset=utf-8" } }];
    const err = await providerError(encoder().embed(["x"]));
    expect(err.status).toBe(403);
    expect(seen).toHaveLength(1);
  });

  it("429 with Retry-After is retried after the advertised wait (capped), then succeeds", async () => {
    script = [json(429, { error: "Rate limit reached" }, { "retry-after": "1" })];
    const retries: HuggingFaceRetryInfo[] = [];
    const vectors = await encoder({ maxRetryWaitMs: 15 }, retries).embed(["hello"]);
    expect(Array.from(vectors[0]!)).toEqual(Array.from(new Float32Array(vectorFor("hello"))));
    expect(seen).toHaveLength(2);
    // Retry-After: 1 s, capped at 15 ms.
    expect(retries).toEqual([expect.objectContaining({ retry: 1, status: 429, waitMs: 15 })]);
  });

  it("429 with Retry-After: 0 waits 0 ms rather than the backoff", async () => {
    script = [json(429, { error: "slow down" }, { "retry-after": "0" })];
    const retries: HuggingFaceRetryInfo[] = [];
    await encoder({ baseRetryDelayMs: 10 }, retries).embed(["hello"]);
    expect(retries.map((r) => r.waitMs)).toEqual([0]);
  });

  it("429 forever gives up after maxRetries + 1 requests with a typed error", async () => {
    fallback = () => json(429, { error: "Rate limit reached" }, { "retry-after": "0" });
    const err = await providerError(encoder({ maxRetries: 2 }).embed(["x"]));
    expect(err.status).toBe(429);
    expect(err.message).toMatch(/Gave up after 3 attempts/);
    expect(err.details).toEqual({ attempts: 3 });
    expect(seen).toHaveLength(3);
  });

  it("503 'model is loading' is retried after estimated_time (capped), then succeeds", async () => {
    script = [
      json(503, { error: "Model test-org/test-embedder is currently loading", estimated_time: 0.005 }),
      json(503, { error: "Model test-org/test-embedder is currently loading", estimated_time: 20.0 }),
    ];
    const retries: HuggingFaceRetryInfo[] = [];
    const vectors = await encoder({}, retries).embed(["abc", "de"]);
    expect(vectors).toHaveLength(2);
    expect(seen).toHaveLength(3);
    expect(retries.map((r) => [r.status, r.waitMs])).toEqual([
      [503, 5],
      [503, 20],
    ]);
    expect(retries[0]!.reason).toMatch(/loading/);
  });

  it("503 loading forever is bounded", async () => {
    fallback = () => json(503, { error: "Model is currently loading", estimated_time: 0 });
    const err = await providerError(encoder({ maxRetries: 1 }).embed(["x"]));
    expect(err.status).toBe(503);
    expect(err.message).toMatch(/still loading/);
    expect(seen).toHaveLength(2);
  });

  it("a malformed JSON body is a typed error, not retried", async () => {
    script = [{ status: 200, body: "[[0.1, 0.2,", headers: { "content-type": "application/json" } }];
    const err = await providerError(encoder().embed(["x"]));
    expect(err.message).toMatch(/not valid JSON/);
    expect(seen).toHaveLength(1);
  });

  it("a body of the wrong shape (object, wrong count, non-number) is a typed error", async () => {
    script = [json(200, { embeddings: [[1, 2, 3, 4]] })];
    expect((await providerError(encoder().embed(["x"]))).message).toMatch(/malformed/);
    script = [json(200, [[1, 2, 3, 4]])];
    expect((await providerError(encoder().embed(["x", "y"]))).message).toMatch(/1 entries for a batch of 2/);
    script = [json(200, [[1, 2, null, 4]])];
    expect((await providerError(encoder().embed(["x"]))).message).toMatch(/malformed/);
  });

  it("a wrong dimension names the text index and both sizes", async () => {
    script = [json(200, [vectorFor("a"), [1, 2, 3]])];
    const err = await providerError(encoder().embed(["a", "b"]));
    expect(err.message).toMatch(/length 3 for text 1/);
    expect(err.message).toMatch(/dim 4/);
    expect(err.details).toMatchObject({ index: 1, expectedDim: 4, actualDim: 3 });
  });

  it("NaN or Infinity in the body never becomes a vector", async () => {
    script = [{ status: 200, body: "[[0.1, NaN, 0.3, 0.4]]", headers: { "content-type": "application/json" } }];
    expect((await providerError(encoder().embed(["x"]))).message).toMatch(/not valid JSON/);
    // 1e999 is valid JSON and parses to Infinity.
    script = [{ status: 200, body: "[[0.1, 1e999, 0.3, 0.4]]", headers: { "content-type": "application/json" } }];
    expect((await providerError(encoder().embed(["x"]))).message).toMatch(
      /non-finite value \(Infinity\) at vector 0, component 1/,
    );
    // Finite in float64 but overflows float32.
    script = [json(200, [[0.1, 1e300, 0.3, 0.4]])];
    expect((await providerError(encoder().embed(["x"]))).message).toMatch(/overflows float32/);
  });

  it("pools token-level output (mean by default, cls on request, refused with none)", async () => {
    const tokens = [
      [
        [1, 2, 3, 4],
        [3, 4, 5, 6],
      ],
    ];
    script = [json(200, tokens)];
    expect(Array.from((await encoder().embed(["x"]))[0]!)).toEqual([2, 3, 4, 5]);
    script = [json(200, tokens)];
    expect(Array.from((await encoder({ pooling: "cls" }).embed(["x"]))[0]!)).toEqual([1, 2, 3, 4]);
    script = [json(200, tokens)];
    expect((await providerError(encoder({ pooling: "none" }).embed(["x"]))).message).toMatch(/token-level/);
  });

  it("accepts a bare vector for a single text", async () => {
    script = [json(200, [1, 2, 3, 4])];
    expect(Array.from((await encoder().embed(["x"]))[0]!)).toEqual([1, 2, 3, 4]);
  });

  it("retries a 500 with backoff and forwards normalize/truncate when set", async () => {
    script = [{ status: 500, body: "boom", headers: { "content-type": "text/plain; charset=utf-8" } }];
    const retries: HuggingFaceRetryInfo[] = [];
    await encoder({ normalize: true, truncate: true, baseRetryDelayMs: 3 }, retries).embed(["x"]);
    expect(retries.map((r) => [r.status, r.waitMs])).toEqual([[500, 3]]);
    expect(seen[1]!.body).toMatchObject({ inputs: ["x"], normalize: true, truncate: true });
  });

  it("an unreachable endpoint is retried (bounded), then a typed error", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const retries: HuggingFaceRetryInfo[] = [];
    const enc = encoder({ endpointUrl: `http://127.0.0.1:${port}/embed`, maxRetries: 1 }, retries);
    const err = await providerError(enc.embed(["x"]));
    expect(err.message).toMatch(/could not be reached/);
    expect(retries).toHaveLength(1);
  });

  it("probe() learns dim from one request", async () => {
    const probed = await HuggingFaceEncoder.probe({ model: "test-org/test-embedder", endpointUrl });
    expect(probed.dim).toBe(DIM);
    expect(probed.id).toBe("huggingface:test-org/test-embedder");
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers.authorization).toBeUndefined();
  });
});

describe("HuggingFaceEncoder options", () => {
  it("derives the id from the model and accepts an explicit id", () => {
    expect(encoder().id).toBe("huggingface:test-org/test-embedder");
    expect(encoder({ id: "my-bge" }).id).toBe("my-bge");
  });

  it("rejects bad options with a ValidationError naming the field", () => {
    const bad: [Partial<HuggingFaceEncoderOptions>, string][] = [
      [{ dim: 0 }, "dim"],
      [{ endpointUrl: "ftp://x" }, "endpointUrl"],
      [{ maxRetries: -1 }, "maxRetries"],
      [{ batchSize: 0 }, "batchSize"],
      [{ pooling: "max" as never }, "pooling"],
      [{ model: "" }, "model"],
      [{ provider: "together" }, "provider"],
    ];
    for (const [patch, field] of bad) {
      try {
        encoder(patch);
        expect.unreachable(field);
      } catch (err) {
        expect(err).toBeInstanceOf(ValidationError);
        expect((err as ValidationError).path).toBe(`HuggingFaceEncoder options.${field}`);
      }
    }
  });

  it("parses Retry-After seconds and HTTP dates", () => {
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter("2")).toBe(2000);
    expect(parseRetryAfter("0.5")).toBe(500);
    expect(parseRetryAfter("soon")).toBeUndefined();
    const inFuture = parseRetryAfter(new Date(Date.now() + 60_000).toUTCString())!;
    expect(inFuture).toBeGreaterThan(50_000);
    expect(parseRetryAfter(new Date(0).toUTCString())).toBe(0);
  });
});
