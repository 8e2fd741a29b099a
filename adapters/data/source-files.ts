import { createHash, type Hash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import { DatasetFormatError, DatasetNotFoundError } from "../../src/errors.js";
import { decodeUtf8 } from "../../src/data/text-decode.js";

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
      const code = (error as NodeJS.ErrnoException).code;
      throw new DatasetNotFoundError(
        code === "ENOENT"
          ? `Dataset file ${path} does not exist; the folder ${this.dir} needs it.`
          : `Dataset file ${path} cannot be read (${code ?? (error as Error).message}); check its permissions.`,
        { file: path, cause: error },
      );
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
