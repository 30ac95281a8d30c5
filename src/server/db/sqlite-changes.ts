/**
 * "Has another process committed since?", asked by the in-memory caches on every read, so it must cost
 * next to nothing. SQLite keeps a shared-memory file beside a WAL database (`<file>-shm`, the
 * wal-index) whose header holds a change counter, `iChange`: a 32-bit word at byte 8, in the machine's
 * byte order, rewritten by every commit of every connection (https://www.sqlite.org/walformat.html).
 * The file's first page is mapped read-only and shared (libc's `mmap` through `bun:ffi`), the way
 * SQLite itself reads it, so a check is one memory read; where that cannot be done (no libc to load,
 * a file shorter than a page) it is a 4-byte `pread` on the same descriptor, about 0.7 µs. `PRAGMA
 * data_version` answers the same question but is a statement that opens a read transaction: profiled
 * under load, it took 40% of a cached `GET /auth/session`.
 *
 * The counter also moves on this process's own commits, which must not empty the caches (the write
 * helpers evict what they change). So the writer reports them: `beginOwn` right after BEGIN IMMEDIATE
 * (from then until COMMIT no other connection can commit) and `endOwn` right after COMMIT or ROLLBACK,
 * in the same synchronous step; whatever moved in between was this process's.
 *
 * The descriptor (and the map) is opened once per file and process, and closed only when the last
 * storage of this process on that file has closed its connections: on POSIX, closing any descriptor of
 * a file drops every lock the process holds on it, SQLite's included, and SQLite reinitializes
 * (truncates) the -shm file when it finds no connection's lock on it. (`Bun.mmap` opens and closes the
 * file itself: it did exactly that, and crashed with SIGBUS when another process started.) While this
 * process has a connection open it holds its lock, so no other process truncates the file under the
 * map. Where the file cannot be opened (an in-memory database) `PRAGMA data_version` on the writer is
 * the signal instead.
 */

import { dlopen, FFIType, type Pointer, read as readMemory } from "bun:ffi";
import type { Database, Statement } from "bun:sqlite";
import { closeSync, existsSync, fstatSync, openSync, readSync } from "node:fs";

export interface ChangeSignal {
  /** Where the answer comes from: the -shm file mapped, or read, or the statement. */
  readonly source: "shared-memory-map" | "shared-memory" | "data_version";
  /** A number that moves only when another connection has committed since the previous call. */
  version(): number;
  /** Right after this process's BEGIN IMMEDIATE succeeded. */
  beginOwn(): void;
  /** Right after this process's COMMIT or ROLLBACK, before anything else runs. */
  endOwn(): void;
  /** After the storage's connections are closed. */
  close(): void;
}

/** Byte 8 of the first header copy: a 32-bit word (compared, not interpreted, so its byte order is moot). */
const ICHANGE_OFFSET = 8;

/** `map: false` reads the word with pread instead (tests; the first storage of a file decides). */
export function changeSignal(path: string, writer: Database, { map = true } = {}): ChangeSignal {
  const shm = path === ":memory:" ? undefined : openShm(`${path}-shm`, map);
  return shm === undefined
    ? dataVersionSignal(writer.prepare("PRAGMA data_version"))
    : sharedMemorySignal(shm);
}

/** An open -shm file: its descriptor, and its first page mapped when that could be done. */
interface Shm {
  fd: number;
  page: Pointer | undefined;
}

/** Open -shm files, by path, with how many storages of this process use each. */
const shared = new Map<string, Shm & { users: number }>();

function openShm(shmPath: string, map: boolean): (Shm & { release(): void }) | undefined {
  let entry = shared.get(shmPath);
  if (entry === undefined) {
    if (!existsSync(shmPath)) return undefined;
    try {
      const fd = openSync(shmPath, "r");
      entry = { fd, page: map ? mapFirstPage(fd) : undefined, users: 0 };
    } catch {
      return undefined;
    }
    shared.set(shmPath, entry);
  }
  const held = entry;
  held.users++;
  let released = false;
  return {
    fd: held.fd,
    page: held.page,
    release() {
      if (released) return;
      released = true;
      if (--held.users > 0) return;
      shared.delete(shmPath);
      if (held.page !== undefined) libc()?.symbols.munmap(held.page, PAGE);
      closeSync(held.fd);
    },
  };
}

const PAGE = 4096;
const PROT_READ = 1;
const MAP_SHARED = 1;

function loadLibc() {
  const name = process.platform === "linux" ? "libc.so.6" : "libc.dylib";
  return dlopen(name, {
    mmap: {
      args: [FFIType.ptr, FFIType.u64, FFIType.i32, FFIType.i32, FFIType.i32, FFIType.i64],
      returns: FFIType.i64_fast,
    },
    munmap: { args: [FFIType.ptr, FFIType.u64], returns: FFIType.i32 },
  });
}
let loaded: ReturnType<typeof loadLibc> | null | undefined;
function libc(): ReturnType<typeof loadLibc> | undefined {
  if (loaded === undefined) {
    try {
      loaded = loadLibc();
    } catch {
      loaded = null;
    }
  }
  return loaded ?? undefined;
}

/** The file's first page mapped read-only and shared, or undefined (then the word is read with pread). */
function mapFirstPage(fd: number): Pointer | undefined {
  if (fstatSync(fd).size < PAGE) return undefined;
  const address = libc()?.symbols.mmap(null, PAGE, PROT_READ, MAP_SHARED, fd, 0);
  // MAP_FAILED is -1; an address too large for a double would come as a BigInt (none does).
  return typeof address === "number" && address > 0 ? (address as Pointer) : undefined;
}

function sharedMemorySignal({ fd, page, release }: Shm & { release(): void }): ChangeSignal {
  const word = Buffer.alloc(4);
  let closed = false;
  /** iChange, or -1 when the header cannot be read (then anything cached is thrown away). */
  const read =
    page !== undefined
      ? () => (closed ? -1 : readMemory.u32(page, ICHANGE_OFFSET))
      : () => (!closed && readSync(fd, word, 0, 4, ICHANGE_OFFSET) === 4 ? word.readUInt32LE(0) : -1);
  let seen = read();
  let external = 0;
  const version = () => {
    const now = read();
    if (now !== seen || now === -1) {
      seen = now;
      external++;
    }
    return external;
  };
  return {
    source: page !== undefined ? "shared-memory-map" : "shared-memory",
    version,
    beginOwn: () => {
      version();
    },
    endOwn: () => {
      seen = read();
    },
    // Only once the storage's connections are closed (see above).
    close: () => {
      closed = true;
      release();
    },
  };
}

/** The writer's data_version moves only for other connections' commits: nothing to tell apart. */
function dataVersionSignal(statement: Statement): ChangeSignal {
  return {
    source: "data_version",
    version: () => (statement.get() as { data_version: number }).data_version,
    beginOwn: () => {},
    endOwn: () => {},
    close: () => statement.finalize(),
  };
}
