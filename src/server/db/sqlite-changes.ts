/**
 * "Has another process committed since?", asked by the in-memory caches on every read, so it must cost
 * next to nothing. SQLite keeps a shared-memory file beside a WAL database (`<file>-shm`, the
 * wal-index) whose header holds a change counter, `iChange`: a 32-bit word at byte 8, in the machine's
 * byte order, rewritten by every commit of every connection (https://www.sqlite.org/walformat.html).
 * Reading it is one 4-byte `pread` on a descriptor kept open. `PRAGMA data_version` answers the same
 * question but is a statement that opens a read transaction: profiled under load, it took 40% of a
 * cached `GET /auth/session`.
 *
 * The counter also moves on this process's own commits, which must not empty the caches (the write
 * helpers evict what they change). So the writer reports them: `beginOwn` right after BEGIN IMMEDIATE
 * (from then until COMMIT no other connection can commit) and `endOwn` right after COMMIT or ROLLBACK,
 * in the same synchronous step; whatever moved in between was this process's.
 *
 * The descriptor is opened once per file and process, and closed only when the last storage of this
 * process on that file has closed its connections: on POSIX, closing any descriptor of a file drops
 * every lock the process holds on it, SQLite's included, and SQLite reinitializes (truncates) the -shm
 * file when it finds no connection's lock on it. (A memory map made by opening and closing the file
 * did exactly that, and crashed with SIGBUS when another process started.) Where the file cannot be
 * opened (an in-memory database) `PRAGMA data_version` on the writer is the signal instead.
 */
import type { Database, Statement } from "bun:sqlite";
import { closeSync, existsSync, openSync, readSync } from "node:fs";

export interface ChangeSignal {
  /** Where the answer comes from. */
  readonly source: "shared-memory" | "data_version";
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

export function changeSignal(path: string, writer: Database): ChangeSignal {
  const shm = path === ":memory:" ? undefined : openShm(`${path}-shm`);
  return shm === undefined
    ? dataVersionSignal(writer.prepare("PRAGMA data_version"))
    : sharedMemorySignal(shm.fd, shm.release);
}

/** Open descriptors of -shm files, by path, with how many storages of this process use each. */
const shared = new Map<string, { fd: number; users: number }>();

function openShm(shmPath: string): { fd: number; release(): void } | undefined {
  let entry = shared.get(shmPath);
  if (entry === undefined) {
    if (!existsSync(shmPath)) return undefined;
    try {
      entry = { fd: openSync(shmPath, "r"), users: 0 };
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
    release() {
      if (released) return;
      released = true;
      if (--held.users > 0) return;
      shared.delete(shmPath);
      closeSync(held.fd);
    },
  };
}

function sharedMemorySignal(fd: number, release: () => void): ChangeSignal {
  const word = Buffer.alloc(4);
  let closed = false;
  /** iChange, or -1 when the header cannot be read (then anything cached is thrown away). */
  const read = () => (!closed && readSync(fd, word, 0, 4, ICHANGE_OFFSET) === 4 ? word.readUInt32LE(0) : -1);
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
    source: "shared-memory",
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
