import type { LanguageModelV3 } from "@ai-sdk/provider";
import { generateText } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { createIrtRouterModel } from "../../src/ai-sdk/index.js";
import { commonSupportedUrls, type UrlPatterns } from "../../src/ai-sdk/supported-urls.js";
import { ToyScorer, quietLogger } from "../langchain/helpers.js";
import { usage } from "./mocks.js";

const GS = /^gs:\/\//;
const HTTPS = /^https:\/\/files\.example\//;

/** A child that declares `supportedUrls` and answers with what it got for the prompt's file part. */
const reader = (id: string, supportedUrls: MockLanguageModelV3["supportedUrls"]) =>
  new MockLanguageModelV3({
    modelId: id,
    supportedUrls,
    doGenerate: async (options) => {
      const file = (options.prompt[0]!.content as { type: string; data?: unknown }[]).find((p) => p.type === "file");
      const got = file?.data instanceof URL ? `URL ${file.data.href}` : "bytes";
      return {
        content: [{ type: "text", text: got }],
        finishReason: { unified: "stop", raw: undefined },
        usage: usage(),
        warnings: [],
      };
    },
  });
/** The same child with its `supportedUrls` a plain object (MockLanguageModelV3 always gives a promise). */
const plain = (id: string, supportedUrls: UrlPatterns): LanguageModelV3 => {
  const mock = reader(id, supportedUrls);
  return {
    specificationVersion: "v3",
    provider: mock.provider,
    modelId: id,
    supportedUrls,
    doGenerate: (options) => mock.doGenerate(options),
    doStream: (options) => mock.doStream(options),
  };
};
const routing = { scorer: new ToyScorer(), logger: quietLogger(), tracing: false };
const pdf = (url: string) => [
  {
    role: "user" as const,
    content: [
      { type: "text" as const, text: "Summarize" },
      { type: "file" as const, data: new URL(url), mediaType: "application/pdf" },
    ],
  },
];

describe("the router's supportedUrls", () => {
  it("passes a URL every child reads itself to the child as a URL (a gs:// PDF)", async () => {
    const declared = { "application/pdf": [GS] };
    const model = createIrtRouterModel({
      models: { "gpt-4": reader("gpt-4", declared), mixtral: reader("mixtral", { "application/pdf": [/^gs:\/\//] }) },
      ...routing,
    });
    expect(await model.supportedUrls).toEqual({ "application/pdf": [GS] });
    const result = await generateText({ model, messages: pdf("gs://bucket/report.pdf"), maxRetries: 0 });
    expect(result.text).toBe("URL gs://bucket/report.pdf");
  });

  it("claims a media type only when every child declares the same patterns for it (sources and flags)", () => {
    const common = (...children: UrlPatterns[]) =>
      commonSupportedUrls(children.map((supportedUrls) => ({ supportedUrls })));
    expect(common({ "image/*": [HTTPS, GS], "application/pdf": [GS] }, { "image/*": [GS, HTTPS, GS] })).toEqual({
      "image/*": [HTTPS, GS],
    });
    expect(common({ "application/pdf": [GS] }, { "application/pdf": [/^gs:\/\//i] })).toEqual({}); // flags differ
    expect(common({ "application/pdf": [GS] }, { "application/pdf": [GS, HTTPS] })).toEqual({}); // one reads more
    expect(common({ "application/pdf": [GS] }, {})).toEqual({}); // one reads none
    expect(common({ "application/pdf": [] }, { "application/pdf": [] })).toEqual({});
    expect(common({ "application/pdf": [GS] }, { "application/pdf": "gs" } as never)).toEqual({}); // malformed
    expect(common()).toEqual({});
  });

  it("is a promise when a child's supportedUrls is one; a child whose promise rejects makes it claim nothing", async () => {
    const lazy = reader("mixtral", Promise.resolve({ "application/pdf": [GS] }));
    const model = createIrtRouterModel({
      models: { "gpt-4": plain("gpt-4", { "application/pdf": [GS] }), mixtral: lazy },
      ...routing,
    });
    expect(typeof (model.supportedUrls as PromiseLike<UrlPatterns>).then).toBe("function");
    const sync = createIrtRouterModel({
      models: { "gpt-4": plain("gpt-4", { "application/pdf": [GS] }), mixtral: plain("mixtral", { "image/*": [GS] }) },
      ...routing,
    });
    expect(sync.supportedUrls).toEqual({}); // plain objects all: a plain object
    expect(await model.supportedUrls).toEqual({ "application/pdf": [GS] });
    const result = await generateText({ model, messages: pdf("gs://bucket/report.pdf"), maxRetries: 0 });
    expect(result.text).toBe("URL gs://bucket/report.pdf");

    const failing = {
      get supportedUrls(): PromiseLike<UrlPatterns> {
        return Promise.reject(new Error("offline"));
      },
    };
    expect(await commonSupportedUrls([{ supportedUrls: { "application/pdf": [GS] } }, failing])).toEqual({});
    const throwing = {
      get supportedUrls(): UrlPatterns {
        throw new Error("no");
      },
    };
    expect(commonSupportedUrls([throwing])).toEqual({});
  });

  it("lets the AI SDK download a URL that some child cannot read itself", async () => {
    const model = createIrtRouterModel({
      models: { "gpt-4": reader("gpt-4", { "application/pdf": [GS] }), mixtral: reader("mixtral", {}) },
      ...routing,
    });
    expect(await model.supportedUrls).toEqual({});
    // the AI SDK downloads it (and cannot: gs:// is no scheme it fetches) rather than give mixtral a URL it cannot read
    await expect(generateText({ model, messages: pdf("gs://bucket/report.pdf"), maxRetries: 0 })).rejects.toThrow(
      /URL scheme must be http, https, or data, got gs:/,
    );
    // the planned model of irtPrepareStep declares the same
    const plan = await model.plan([{ role: "user", content: "hi" }], {});
    expect(await model.planned(plan).supportedUrls).toEqual({});
  });
});
