import { describe, expect, it } from "vitest";
import { DatasetFormatError } from "../../src/errors.js";
import { decodeUtf8 } from "../../src/data/text-decode.js";
import { thrownBy } from "../errors.js";

const formatError = (fn: () => unknown) => thrownBy(DatasetFormatError, fn);

describe("decodeUtf8", () => {
  it("decodes UTF-8 (multi-byte characters, a leading BOM kept for the parsers to skip)", () => {
    expect(decodeUtf8(Buffer.from("a,b\n1,café 日本 🎉\n"), "f.csv")).toBe("a,b\n1,café 日本 🎉\n");
    expect(decodeUtf8(Buffer.from("\ufeffa\n"), "f.csv")).toBe("\ufeffa\n");
    expect(decodeUtf8(Buffer.from("a\n1,\ufffd\n"), "f.csv")).toBe("a\n1,\ufffd\n"); // a real U+FFFD is fine
  });

  it("rejects Latin-1 bytes, naming the file and line, instead of replacing them", () => {
    const error = formatError(() => decodeUtf8(Buffer.from("item_id,text\nq1,caf\xe9\n", "latin1"), "items.csv"));
    expect(error.file).toBe("items.csv");
    expect(error.line).toBe(2);
    expect(error.message).toMatch(/not UTF-8.*0xe9.*re-save it as UTF-8/i);
  });

  it("rejects truncated, overlong and surrogate sequences at the right line", () => {
    for (const bad of [[0xc3], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82]]) {
      const bytes = Buffer.concat([Buffer.from("a\nb\n"), Buffer.from(bad), Buffer.from("\n")]);
      expect(formatError(() => decodeUtf8(bytes, "f.csv")).line, JSON.stringify(bad)).toBe(3);
    }
  });

  it("names a UTF-16 file as UTF-16 (with or without a byte-order mark)", () => {
    const le = formatError(() => decodeUtf8(Buffer.from("\ufeffitem_id,text\n", "utf16le"), "items.csv"));
    expect(le.message).toMatch(/UTF-16.*re-save it as UTF-8/);
    expect(le.line).toBe(1);
    const be = Buffer.from("\ufeffitem_id\n", "utf16le").swap16();
    expect(formatError(() => decodeUtf8(be, "items.csv")).message).toMatch(/UTF-16 big-endian/);
    const noBom = formatError(() => decodeUtf8(Buffer.from("item_id,text\nq1,x\n", "utf16le"), "items.csv"));
    expect(noBom.message).toMatch(/NUL.*UTF-16/);
  });
});
