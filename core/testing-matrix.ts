import type { TestKernel } from './testing.ts';
import type { SignedUpUser } from './testing-people.ts';

/*
 * The authorization matrix's contract: every route of every enabled plugin answers each caller of one shared world
 * with the status its row expects. A plugin keeps its rows beside its tests (`matrix.rows.ts`, exporting `plugin`
 * and `rows`), typed by what is here.
 */

/** The people of the matrix. `root` is the instance admin and no member of the workspace. */
export const PEOPLE = ['root', 'admin', 'creator', 'editor', 'member', 'guest_in', 'guest_out', 'outsider'] as const;
export type Person = (typeof PEOPLE)[number];

/** Who calls, in the column order of every matrix row. */
export const CALLERS = [
  'root',
  'admin',
  'creator',
  'editor',
  'member',
  'guest_in',
  'guest_out',
  'pat_read',
  'pat_write',
  'pat_admin',
  'outsider',
  'anonymous',
] as const;
export type Caller = (typeof CALLERS)[number];

export type People = Record<Person, SignedUpUser>;

/**
 * One workspace as the matrix sees it: `admin` owns it; `creator`, `editor`, `member` hold
 * those roles; `guest_in` is a guest of space S, `guest_out` a guest of space T only.
 * S (and its folder F and database D) were created by `creator`; T by `admin`. The three tokens belong to
 * `admin` and are bound to this workspace. `outsider` is the admin of another workspace.
 */
export interface World {
  ws: string;
  people: People;
  otherWs: string;
  spaceS: string;
  spaceT: string;
  folderF: string;
  /** A database in S, created by `creator`, named `D`, with a text field `notes` and a single select `stage`. */
  databaseD: string;
  /** The choice `Open` of `stage`. */
  optionOpen: string;
  pats: Record<'read' | 'write' | 'admin', string>;
  /**
   * Vault, a database in T that D links to (a link field `vault` and a lookup `vault_titles` on D):
   * a record of D links Vault's record titled `marker`. `guest_in` reads D but not Vault, so no
   * answer it gets may hold Vault's id or the marker. Only in the shared world: the fresh worlds
   * serve rows that destroy, whose answers show nothing.
   */
  vault?: { database: string; marker: string };
  /** Resources of the outsider's workspace, to name under this one. */
  foreign: { space: string; folder: string; invite: string; grant: string; database: string };
}

export interface MatrixRequest {
  path: string;
  body?: object;
  query?: Record<string, string>;
  /** A multipart upload in field `file`. */
  file?: { bytes: Buffer; filename: string; type: string };
  /** The answer is a stream that does not end (server-sent events): its status is read, then the connection is closed. */
  stream?: true;
}

export interface MatrixRow {
  /** `METHOD /path/{template}`, exactly as the route is declared. */
  route: string;
  /**
   * Expected status per caller, in the order of CALLERS:
   * root admin creator editor member guest_in guest_out pat_read pat_write pat_admin outsider anonymous
   */
  expect: string;
  /**
   * `world`: the call destroys or changes what others need, so the caller after one that went through (2xx) gets a
   * new world; callers refused before it share one, since a refused call changes nothing;
   * `credential`: each caller sends a new session or token of its own (the call ends it).
   */
  fresh?: 'world' | 'credential';
  request: (w: World, caller: Caller, t: TestKernel) => MatrixRequest | Promise<MatrixRequest>;
  /** The same request naming another workspace's resource under this workspace: always 404 for its admin. */
  foreign?: (w: World, t: TestKernel) => MatrixRequest | Promise<MatrixRequest>;
}

/**
 * `make` once per world: what a read-only row's callers all read (a record with a trail, an import) is made for the
 * first caller and named to the others, instead of once per caller. Only for rows whose call changes nothing.
 */
export function perWorld<T>(make: (t: TestKernel, w: World) => Promise<T>): (t: TestKernel, w: World) => Promise<T> {
  const made = new WeakMap<World, Promise<T>>();
  return (t, w) => {
    let result = made.get(w);
    if (!result) made.set(w, (result = make(t, w)));
    return result;
  };
}
