import { describe, expect, it } from "vitest";
import { LruCache } from "../../src/encoders/lru.js";
import { checkTexts, findLoneSurrogate } from "../../src/encoders/text.js";
import { EncoderInputError } from "../../src/errors.js";

describe("findLoneSurrogate", () => {
  it("finds unpaired high and low surrogates and accepts pairs", () => {
    expect(findLoneSurrogate("plain")).toBe(-1);
    expect(findLoneSurrogate("emoji 😀 ok")).toBe(-1);
    expect(findLoneSurrogate("x\ud83d")).toBe(1);
    expect(findLoneSurrogate("\ude00x")).toBe(0);
    expect(findLoneSurrogate("😀\ud83d😀")).toBe(2);
  });
});

describe("checkTexts", () => {
  it("returns the array when every element is a non-empty string", () => {
    const texts = ["a", " ", "\u200b"];
    expect(checkTexts(texts)).toBe(texts);
    expect(checkTexts([])).toEqual([]);
  });
  it("names the bad index and type", () => {
    expect(() => checkTexts(["a", 1n])).toThrow(/texts\[1\] is a bigint/);
    expect(() => checkTexts(["a", ""])).toThrow(EncoderInputError);
    expect(() => checkTexts(new Set(["a"]))).toThrow(/array of strings, got an object/);
  });
  it("only rejects lone surrogates when asked", () => {
    expect(checkTexts(["\ud800"])).toEqual(["\ud800"]);
    expect(() => checkTexts(["ok", "\ud800"], { loneSurrogates: "error" })).toThrow(/texts\[1\].*index 0/);
  });
});

describe("LruCache", () => {
  it("evicts the least recently used entry and counts hits and misses", () => {
    const cache = new LruCache<string, number>(2);
    cache.set("a", 1);
    cache.set("b", 2);
    expect(cache.get("a")).toBe(1);
    cache.set("c", 3);
    expect(cache.has("b")).toBe(false);
    expect(cache.get("b")).toBeUndefined();
    expect(cache.stats).toEqual({ hits: 1, misses: 1, size: 2, capacity: 2 });
  });
  it("stores nothing at capacity 0 and rejects a bad capacity", () => {
    const cache = new LruCache<string, number>(0);
    cache.set("a", 1);
    expect(cache.size).toBe(0);
    expect(() => new LruCache(-1)).toThrow(RangeError);
    expect(() => new LruCache(1.5)).toThrow(RangeError);
  });
});
