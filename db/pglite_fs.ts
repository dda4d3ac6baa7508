/**
 * PGlite's file layer for a data directory, with file sizes remembered.
 *
 * PostgreSQL asks a relation's size with `lseek(fd, 0, SEEK_END)` many
 * times per statement (every scan start, every extension of a table or an
 * index). Emscripten's NODEFS answers each with `fs.fstatSync`, which in
 * Deno builds a whole Node `Stats` object (dates included) around the
 * system call: 15% of the server's CPU under the posting benchmark, more
 * than four fifths of it the conversion. Here the size of each open file is
 * kept from its first `SEEK_END` and moved by every write through this
 * layer; anything else that can change it (truncation, attributes, opening
 * with O_TRUNC) forgets it, so the next `SEEK_END` asks the file again.
 *
 * This holds because the data directory has one owner: the server claims it
 * (main.ts, admin/client.ts) and every write to it goes through this layer.
 * The ops patched are NODEFS's own (same in the pinned 0.5.x and 0.5.17),
 * shared by every file of the mount; nodes are Emscripten's per-path
 * objects, so a removed and recreated file starts without a size.
 */
import { NodeFS } from "@electric-sql/pglite/nodefs";

/** Emscripten's SEEK_END. */
const SEEK_END = 2;

/** The parts of an Emscripten file node and stream used here. */
interface FsNode {
  mode: number;
}
interface FsStream {
  node: FsNode;
}
type Op = (this: unknown, ...args: never[]) => unknown;

/** The NODEFS stream and node operations replaced here. */
interface NodefsOps {
  stream_ops: Record<string, Op>;
  node_ops: Record<string, Op>;
}

/** The module PGlite hands its preRun hooks (the parts used here). */
interface EmscriptenModule {
  NODEFS: NodefsOps;
  FS: { isFile(mode: number): boolean };
}

/** Wraps NODEFS's operations so that `SEEK_END` is answered from a remembered size. */
export function rememberFileSizes(module: EmscriptenModule): void {
  const { NODEFS, FS } = module;
  const sizes = new WeakMap<FsNode, number>();
  const stream = NODEFS.stream_ops as Record<string, (...args: never[]) => unknown>;
  const node = NODEFS.node_ops as Record<string, (...args: never[]) => unknown>;
  const llseek = stream.llseek as (s: FsStream, offset: number, whence: number) => number;
  const write = stream.write as (
    s: FsStream,
    buffer: unknown,
    offset: number,
    length: number,
    position: number,
  ) => number;
  const forget = (original: (...args: never[]) => unknown, nodeOf: (first: never) => FsNode) =>
    function (this: unknown, ...args: never[]) {
      sizes.delete(nodeOf(args[0]));
      return original.apply(this, args);
    };

  stream.llseek = ((s: FsStream, offset: number, whence: number): number => {
    if (whence !== SEEK_END || !FS.isFile(s.node.mode)) return llseek(s, offset, whence);
    const size = sizes.get(s.node);
    if (size !== undefined && offset + size >= 0) return offset + size;
    const position = llseek(s, offset, whence);
    sizes.set(s.node, position - offset);
    return position;
  }) as never;
  stream.write = ((
    s: FsStream,
    buffer: unknown,
    offset: number,
    length: number,
    position: number,
  ): number => {
    const written = write(s, buffer, offset, length, position);
    const size = sizes.get(s.node);
    if (size === undefined) return written;
    if (typeof position !== "number") sizes.delete(s.node);
    else sizes.set(s.node, Math.max(size, position + written));
    return written;
  }) as never;
  // ftruncate and attributes through an open file; opening (O_TRUNC
  // reaches the real open); truncate and attributes by path.
  stream.setattr = forget(stream.setattr, (s: FsStream) => s.node) as never;
  stream.open = forget(stream.open, (s: FsStream) => s.node) as never;
  node.setattr = forget(node.setattr, (n: FsNode) => n) as never;
}

/** NodeFS with {@link rememberFileSizes} installed before the data directory is mounted. */
export class SizedNodeFS extends NodeFS {
  override async init(
    ...args: Parameters<NodeFS["init"]>
  ): ReturnType<NodeFS["init"]> {
    const result = await super.init(...args);
    const opts = result.emscriptenOpts;
    opts.preRun = [
      (module: unknown) => rememberFileSizes(module as EmscriptenModule),
      ...(opts.preRun ?? []),
    ];
    return result;
  }
}
