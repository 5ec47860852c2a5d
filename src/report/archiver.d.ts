/**
 * The part of archiver 5 (MIT, https://github.com/archiverjs/node-archiver) that `xlsx-stream.ts`
 * uses, typed here instead of adding @types/archiver to the shared install. An archive is a
 * readable stream of the zip's bytes (archiver's Archiver extends stream.Transform).
 */
declare module "archiver" {
  import type { Readable } from "stream";

  interface ZipArchive extends Readable {
    append(source: string | Buffer | Readable, entry: { name: string }): this;
    finalize(): Promise<void>;
  }

  function archiver(format: "zip", options?: { zlib?: { level?: number } }): ZipArchive;
  export default archiver;
}
