import { createHash, type Hash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { pipeline, Transform, type Readable } from "node:stream";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import { createGunzip, gunzip } from "node:zlib";
import { DatasetFormatError, DatasetNotFoundError } from "../../src/errors.js";
import { decodeUtf8, decodeUtf8Lines } from "../../src/data/text-decode.js";

const gunzipAsync = promisify(gunzip);

/**
 * Reads the files of one dataset folder and hashes everything it reads (name + bytes, in read order)
 * together with a description of the loader, so the dataset's `source.sha256` changes whenever the
 * loaded form could change.
 */
export class SourceFiles {
  private readonly hash: Hash = createHash("sha256");
  private readonly read: string[] = [];

  /** @param describe - loader name, options and text-rule version, hashed before any file. */
  constructor(
    readonly dir: string,
    describe: string,
  ) {
    this.hash.update(`irt-router-dataset\0${describe}\0`);
  }

  /**
   * Read `name` (relative to the folder) as UTF-8 text, gunzipping `.gz` files. Bytes that are not UTF-8
   * (Latin-1, UTF-16, ...) are a {@link DatasetFormatError} naming the file and line (see {@link decodeUtf8}),
   * never replaced.
   */
  async text(name: string): Promise<string> {
    const path = join(this.dir, name);
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch (error) {
      throw this.unreadable(path, error);
    }
    this.hash.update(`${name}\0${bytes.length}\0`);
    this.hash.update(bytes);
    this.read.push(name);
    if (!name.endsWith(".gz")) return decodeUtf8(bytes, path);
    let unzipped: Buffer;
    try {
      unzipped = await gunzipAsync(bytes);
    } catch (error) {
      throw new DatasetFormatError(`${path} is not a valid gzip file: ${(error as Error).message}.`, {
        file: path,
        cause: error,
      });
    }
    return decodeUtf8(unzipped, path);
  }

  /**
   * Read `name` as a stream of its lines (UTF-8, gunzipping `.gz`), in batches (the lines of one chunk of the file),
   * each line without its newline (a `\r` before it is kept) with its 1-based number. Memory holds a chunk, not the
   * file; the bytes are hashed as {@link SourceFiles.text} hashes them. Same errors as `text`, naming the line.
   */
  async *lines(name: string): AsyncGenerator<StreamedLine[]> {
    const path = join(this.dir, name);
    let size: number;
    try {
      size = (await stat(path)).size;
    } catch (error) {
      throw this.unreadable(path, error);
    }
    this.hash.update(`${name}\0${size}\0`);
    this.read.push(name);
    const hash = this.hash;
    const hashing = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        done(null, chunk);
      },
    });
    const gz = name.endsWith(".gz");
    const ignore = () => undefined; // errors reach the loop below through the last stream
    const bytes: Readable = gz
      ? pipeline(createReadStream(path), hashing, createGunzip(), ignore)
      : pipeline(createReadStream(path), hashing, ignore);
    try {
      yield* splitLines(bytes, path);
    } catch (error) {
      if (error instanceof DatasetFormatError) throw error;
      const code = String((error as NodeJS.ErrnoException).code ?? "");
      if (gz && code.startsWith("Z_")) {
        throw new DatasetFormatError(`${path} is not a valid gzip file: ${(error as Error).message}.`, {
          file: path,
          cause: error,
        });
      }
      throw this.unreadable(path, error);
    } finally {
      bytes.destroy();
    }
  }

  private unreadable(path: string, error: unknown): DatasetNotFoundError {
    const code = (error as NodeJS.ErrnoException).code;
    return new DatasetNotFoundError(
      code === "ENOENT"
        ? `Dataset file ${path} does not exist; the folder ${this.dir} needs it.`
        : `Dataset file ${path} cannot be read (${code ?? (error as Error).message}); check its permissions.`,
      { file: path, cause: error },
    );
  }

  /** The dataset's `source` record. Call once, after every file was read. */
  finish(): { dir: string; files: string[]; sha256: string } {
    return { dir: this.dir, files: [...this.read], sha256: this.hash.digest("hex") };
  }

  /** Path of `name` in this folder (for error messages). */
  path(name: string): string {
    return join(this.dir, name);
  }

  /** The folder's base name (`D` of the split rule). */
  get folderName(): string {
    return basename(this.dir);
  }
}

/** One line of a file read as a stream: its text without the newline, and its 1-based number. */
export interface StreamedLine {
  readonly text: string;
  readonly line: number;
}

/**
 * The lines of a stream of bytes, in batches (the lines each chunk completes), decoded as strict UTF-8 line by line
 * (a newline byte never falls inside a UTF-8 sequence, so cutting there is safe). Holds one chunk and the unfinished
 * line at a time, whatever the stream's length. An unfinished last line (no newline at the end) is the last line.
 *
 * @example
 * ```ts
 * for await (const batch of splitLines(createReadStream("labels.csv"), "labels.csv"))
 *   for (const { text, line } of batch) console.log(line, text);
 * ```
 */
export async function* splitLines(chunks: AsyncIterable<Uint8Array>, file: string): AsyncGenerator<StreamedLine[]> {
  let partial: Buffer[] = [];
  let line = 0;
  for await (const chunk of chunks) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const batch: StreamedLine[] = [];
    let start = 0;
    for (let nl = buf.indexOf(0x0a, start); nl >= 0; nl = buf.indexOf(0x0a, start)) {
      const piece = buf.subarray(start, nl);
      const bytes = partial.length > 0 ? Buffer.concat([...partial, piece]) : piece;
      partial = [];
      batch.push({ text: decodeUtf8Lines(bytes, file, line), line: ++line });
      start = nl + 1;
    }
    if (start < buf.length) partial.push(Buffer.from(buf.subarray(start)));
    if (batch.length > 0) yield batch;
  }
  if (partial.length > 0) yield [{ text: decodeUtf8Lines(Buffer.concat(partial), file, line), line: line + 1 }];
}
