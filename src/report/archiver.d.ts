/**
 * The part of archiver 5 (MIT, https://github.com/archiverjs/node-archiver) that `xlsx-stream.ts`
 * uses, typed here instead of adding @types/archiver to the shared install.
 */
declare module "archiver" {
  import type { Readable, Writable } from "stream";

  interface ZipArchive {
    pipe(destination: Writable): Writable;
    append(source: string | Buffer | Readable, entry: { name: string }): this;
    finalize(): Promise<void>;
    on(event: "error" | "warning", listener: (error: Error) => void): this;
  }

  function archiver(format: "zip", options?: { zlib?: { level?: number } }): ZipArchive;
  export default archiver;
}
