/**
 * Reading an input file with a bound that holds whatever the file is. A file's reported size is
 * no guide: it is 0 for a device (`/dev/zero`), a pipe (`/dev/stdin`) or a FIFO, and a file still
 * being written grows past it. So the bytes themselves are counted: at most `limit + 1` are read,
 * and the `+ 1` is what tells "exactly the limit" from "more than the limit".
 */
import * as fs from "fs";

/** What {@link readBounded} found: the bytes read, and whether the file went on past the limit. */
export interface BoundedBytes {
  bytes: Buffer;
  /** true when more than `limit` bytes were there (only `limit + 1` were read). */
  overLimit: boolean;
}

/** Bytes asked of the file per read call. */
const CHUNK = 1 << 16;

/**
 * Reads `file` from its start (or, for a pipe, from where it is) until its end or until
 * `limit + 1` bytes, whichever comes first. Position-less reads, so pipes and FIFOs work.
 *
 * @param file - the path (a regular file, device, FIFO or `/dev/stdin`)
 * @param limit - the most bytes the caller accepts
 * @returns the bytes read (at most `limit + 1`) and whether there were more than `limit`
 * @throws the file system's error (ENOENT, EISDIR, EACCES) as Node gives it
 * @example
 * await readBounded("/dev/zero", 10); // => { bytes: <11 zero bytes>, overLimit: true }
 */
export async function readBounded(file: string, limit: number): Promise<BoundedBytes> {
  const handle = await fs.promises.open(file, "r");
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    while (total <= limit) {
      const want = Math.min(CHUNK, limit + 1 - total);
      const buffer = Buffer.allocUnsafe(want);
      const { bytesRead } = await handle.read(buffer, 0, want, null);
      if (bytesRead === 0) break;
      chunks.push(bytesRead === want ? buffer : buffer.subarray(0, bytesRead));
      total += bytesRead;
    }
    return { bytes: Buffer.concat(chunks, total), overLimit: total > limit };
  } finally {
    await handle.close();
  }
}

/**
 * The bytes of `file` as a stream of chunks (for the lab readers, which stop pulling once they
 * refuse a file), ending after at most `limit + 1` bytes: a device or an endless pipe cannot make
 * the reading go on past the largest input any reader accepts.
 *
 * @param file - the path
 * @param limit - the most bytes any reader of this file accepts
 * @param chunkBytes - bytes per chunk (1 MiB: the readers' fast path works on large chunks)
 */
export async function* boundedChunks(file: string, limit: number, chunkBytes = 1 << 20): AsyncGenerator<Uint8Array> {
  const handle = await fs.promises.open(file, "r");
  try {
    let total = 0;
    while (total <= limit) {
      const want = Math.min(chunkBytes, limit + 1 - total);
      const buffer = Buffer.allocUnsafe(want);
      const { bytesRead } = await handle.read(buffer, 0, want, null);
      if (bytesRead === 0) return;
      total += bytesRead;
      yield bytesRead === want ? buffer : buffer.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}
