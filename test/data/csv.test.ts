import { describe, expect, it } from "vitest";
import { DatasetFormatError } from "../../src/errors.js";
import { columnIndex, formatCsv, parseCsv, parseCsvRows } from "../../src/data/csv.js";
import { thrownBy } from "../errors.js";

const formatError = (fn: () => unknown) => thrownBy(DatasetFormatError, fn);

describe("parseCsv (RFC 4180)", () => {
  it("parses quoted fields with commas, doubled quotes and embedded newlines, tracking record lines", () => {
    const text = 'id,text\n1,"a, ""b""\nc"\n2,plain\r\n3,""\n4,\n';
    const { header, records } = parseCsv(text, "t.csv");
    expect(header).toEqual(["id", "text"]);
    expect(records.map((r) => r.fields)).toEqual([
      ["1", 'a, "b"\nc'],
      ["2", "plain"],
      ["3", ""],
      ["4", ""],
    ]);
    expect(records.map((r) => r.line)).toEqual([2, 4, 5, 6]);
  });

  it("keeps CRLF inside quotes, strips a BOM, accepts a missing final newline and skips empty lines", () => {
    const { header, records } = parseCsv('\ufeffa,b\n\n"x\r\ny",2\n\n3,4', "t.csv");
    expect(header).toEqual(["a", "b"]);
    expect(records.map((r) => r.fields)).toEqual([
      ["x\r\ny", "2"],
      ["3", "4"],
    ]);
    expect(records.map((r) => r.line)).toEqual([3, 6]);
  });

  it("keeps a trailing empty field and spaces", () => {
    expect(parseCsvRows("a, b ,", "t.csv")[0]!.fields).toEqual(["a", " b ", ""]);
  });

  it("rejects an unterminated quote, naming the line where it opened", () => {
    const error = formatError(() => parseCsv('id,text\n1,ok\n2,"never closed\n3,x\n', "items.csv"));
    expect(error.file).toBe("items.csv");
    expect(error.line).toBe(3);
    expect(error.message).toMatch(/unterminated/);
  });

  it("rejects a wrong column count with the record's line", () => {
    const error = formatError(() => parseCsv('id,text\n1,"two\nlines"\n2,a,b\n', "items.csv"));
    expect(error.line).toBe(4);
    expect(error.message).toMatch(/expected 2 columns/);
  });

  it("rejects a stray quote in an unquoted field and text after a closing quote", () => {
    expect(formatError(() => parseCsv('a,b\n1,x"y\n', "t.csv")).line).toBe(2);
    expect(formatError(() => parseCsv('a,b\n1,"x"y\n', "t.csv")).line).toBe(2);
  });

  it("rejects a bare CR (old Mac line ending) outside quotes, naming the line, but keeps one inside quotes", () => {
    const mac = formatError(() => parseCsv("item_id,text\rq1,hi\rq2,yo\r", "items.csv"));
    expect(mac.file).toBe("items.csv");
    expect(mac.line).toBe(1);
    expect(mac.message).toMatch(/carriage return.*line endings/);
    expect(formatError(() => parseCsv("a,b\n1,2\n3,x\ry\n", "t.csv")).line).toBe(3); // stray CR in a field
    expect(formatError(() => parseCsv('a,b\n1,"2"\r3,4\n', "t.csv")).message).toMatch(/carriage return/); // after a quote
    expect(formatError(() => parseCsv("a,b\n\r\n1,2\n\r", "t.csv")).line).toBe(4); // a lone CR on its own line
    expect(parseCsv('a,b\n1,"x\ry"\r\n', "t.csv").records[0]!.fields).toEqual(["1", "x\ry"]);
  });

  it("rejects an empty file", () => {
    expect(formatError(() => parseCsv("", "t.csv")).line).toBe(1);
  });

  it("round-trips through formatCsv", () => {
    const rows = [
      ["1", 'quote " comma , newline \n cr \r end'],
      ["2", " leading space"],
      ["3", ""],
    ];
    const { header, records } = parseCsv(formatCsv(["id", "text"], rows), "t.csv");
    expect(header).toEqual(["id", "text"]);
    expect(records.map((r) => r.fields)).toEqual(rows);
  });
});

describe("columnIndex", () => {
  it("maps names to positions and reports every missing required column", () => {
    expect(columnIndex(["b", "a"], ["a"], "f.csv")).toEqual({ b: 0, a: 1 });
    const error = formatError(() => columnIndex(["item_id"], ["item_id", "text", "model"], "f.csv"));
    expect(error.line).toBe(1);
    expect(error.message).toContain('"text", "model"');
  });

  it("rejects a duplicated header column", () => {
    expect(formatError(() => columnIndex(["a", "a"], ["a"], "f.csv")).message).toMatch(/twice/);
  });

  it("takes columns named after Object.prototype keys as columns, once each", () => {
    const col = columnIndex(["item_id", "constructor", "toString", "__proto__"], ["item_id"], "f.csv");
    expect(Object.entries(col)).toEqual([
      ["item_id", 0],
      ["constructor", 1],
      ["toString", 2],
      ["__proto__", 3],
    ]);
    expect(col.hasOwnProperty).toBeUndefined(); // not a column: no inherited member answers for one
    expect(formatError(() => columnIndex(["toString", "toString"], [], "f.csv")).message).toMatch(
      /"toString" appears twice/,
    );
    expect(formatError(() => columnIndex(["a"], ["constructor"], "f.csv")).message).toMatch(/missing.*"constructor"/);
  });
});
