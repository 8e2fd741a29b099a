import { DatasetFormatError } from "../errors.js";

/** Where a literal came from, for error messages. */
export interface LiteralSource {
  readonly file?: string;
  readonly line?: number;
}

/**
 * Parse a Python list literal of string literals, e.g. `['a\\nb', "c's"]`, into its strings.
 *
 * Supports single- and double-quoted strings, the `r`/`u`/`b` prefixes (any case; `r` disables escapes),
 * adjacent-literal concatenation (`'a' 'b'`), a trailing comma, and every Python string escape:
 * `\\ \' \" \a \b \f \n \r \t \v`, octal `\ooo`, `\xhh`, `\uXXXX`, `\UXXXXXXXX` and a backslash-newline
 * continuation. An unknown escape keeps its backslash, as Python does. Anything else is a
 * {@link DatasetFormatError}.
 *
 * @example
 * ```ts
 * parsePythonStringList("['Line one\\\\nIt\\\\'s two']"); // ["Line one\nIt's two"]
 * ```
 */
export function parsePythonStringList(literal: string, source: LiteralSource = {}): string[] {
  const p = new Parser(literal, source);
  p.skipSpace();
  p.expect("[");
  const out: string[] = [];
  p.skipSpace();
  if (p.peek() === "]") {
    p.pos++;
  } else {
    for (;;) {
      let value = p.readString();
      p.skipSpace();
      while (p.atStringStart()) {
        value += p.readString();
        p.skipSpace();
      }
      out.push(value);
      const c = p.peek();
      if (c === ",") {
        p.pos++;
        p.skipSpace();
        if (p.peek() === "]") {
          p.pos++;
          break;
        }
        continue;
      }
      p.expect("]");
      break;
    }
  }
  p.skipSpace();
  if (p.pos !== literal.length) p.fail("unexpected text after the closing ']'");
  return out;
}

/**
 * Parse one Python string literal (with optional prefix) that makes up the whole input.
 *
 * @example
 * ```ts
 * parsePythonString(String.raw`'caf\xe9'`); // "café"
 * ```
 */
export function parsePythonString(literal: string, source: LiteralSource = {}): string {
  const p = new Parser(literal, source);
  p.skipSpace();
  const value = p.readString();
  p.skipSpace();
  if (p.pos !== literal.length) p.fail("unexpected text after the string literal");
  return value;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  "\\": "\\",
  "'": "'",
  '"': '"',
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
};

/** Characters that end a run of ordinary string content. */
const SPECIAL = /[\\'"\n]/g;

class Parser {
  pos = 0;
  constructor(
    private readonly s: string,
    private readonly source: LiteralSource,
  ) {}

  peek(): string | undefined {
    return this.s[this.pos];
  }

  skipSpace(): void {
    while (this.pos < this.s.length && /\s/.test(this.s[this.pos]!)) this.pos++;
  }

  expect(c: string): void {
    if (this.s[this.pos] !== c) this.fail(`expected '${c}'`);
    this.pos++;
  }

  atStringStart(): boolean {
    let k = this.pos;
    while (k < this.s.length && k - this.pos < 2 && /[rRuUbB]/.test(this.s[k]!)) k++;
    return this.s[k] === "'" || this.s[k] === '"';
  }

  fail(what: string): never {
    const where = this.source.file
      ? `${this.source.file}${this.source.line !== undefined ? ` line ${this.source.line}` : ""}: `
      : "";
    throw new DatasetFormatError(`${where}malformed Python string literal at character ${this.pos + 1}: ${what}.`, {
      file: this.source.file,
      line: this.source.line,
    });
  }

  readString(): string {
    let raw = false;
    while (/[rRuUbB]/.test(this.s[this.pos] ?? "")) {
      if (this.s[this.pos] === "r" || this.s[this.pos] === "R") raw = true;
      this.pos++;
    }
    const quote = this.s[this.pos];
    if (quote !== "'" && quote !== '"') this.fail("expected a string literal");
    const triple = this.s.startsWith(quote.repeat(3), this.pos);
    const close = triple ? quote.repeat(3) : quote;
    this.pos += close.length;
    let out = "";
    for (;;) {
      if (this.pos >= this.s.length) this.fail("unterminated string literal");
      if (this.s.startsWith(close, this.pos)) {
        this.pos += close.length;
        return out;
      }
      const c = this.s[this.pos]!;
      if (c === "\n" && !triple) this.fail("newline inside a single-quoted string literal");
      if (c !== "\\") {
        // Copy the run of ordinary characters up to the next backslash, quote or newline in one slice.
        SPECIAL.lastIndex = this.pos + 1;
        const next = SPECIAL.exec(this.s);
        const end = next ? next.index : this.s.length;
        out += this.s.slice(this.pos, end);
        this.pos = end;
        continue;
      }
      const e = this.s[this.pos + 1];
      if (e === undefined) this.fail("string ends with a backslash");
      if (raw) {
        // In raw strings a backslash only protects the next character from ending the string.
        out += c + e;
        this.pos += 2;
        continue;
      }
      this.pos += 2;
      if (e in SIMPLE_ESCAPES) {
        out += SIMPLE_ESCAPES[e];
      } else if (e === "\n") {
        // line continuation: nothing
      } else if (e >= "0" && e <= "7") {
        let digits = e;
        while (digits.length < 3 && /[0-7]/.test(this.s[this.pos] ?? "")) digits += this.s[this.pos++];
        out += String.fromCodePoint(parseInt(digits, 8));
      } else if (e === "x" || e === "u" || e === "U") {
        const len = e === "x" ? 2 : e === "u" ? 4 : 8;
        const hex = this.s.slice(this.pos, this.pos + len);
        if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(hex)) this.fail(`\\${e} escape needs ${len} hex digits`);
        const code = parseInt(hex, 16);
        if (code > 0x10ffff) this.fail(`\\${e}${hex} is not a valid code point`);
        out += String.fromCodePoint(code);
        this.pos += len;
      } else {
        // Unknown escape (e.g. "\d"): Python keeps the backslash.
        out += `\\${e}`;
      }
    }
  }
}
