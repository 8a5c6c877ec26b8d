/**
 * Read-only enforcement for preview2-shim descriptors. The shim has no read-only mode, so every
 * descriptor handed to a guest is tagged `ro` or `rw`, and:
 * - on `ro` descriptors every mutating method throws `read-only`, and `openAt` refuses
 *   create/truncate/write/mutate-directory;
 * - on every descriptor, `renameAt`/`linkAt` refuse an `ro` target descriptor (a rename or hard
 *   link across descriptors must not write into a read-only tree);
 * - children returned by `openAt` inherit the tag.
 * jco dispatches resource methods dynamically, so own properties shadow the class methods.
 */

type Descriptor = Record<string, unknown> & object;
type Mode = 'ro' | 'rw';

const MUTATING = [
  'createDirectoryAt',
  'removeDirectoryAt',
  'unlinkFileAt',
  'renameAt',
  'symlinkAt',
  'linkAt',
  'setTimesAt',
  'setTimes',
  'setSize',
  'write',
  'writeViaStream',
  'appendViaStream',
] as const;

/** Tags descriptors of one plugin instance and wraps them. One per instance (no global state). */
export function createFsGuard(): { wrap(d: object, mode: Mode, isPreopen: boolean): object; modeOf(d: object): Mode | undefined } {
  const modes = new WeakMap<object, Mode>();
  const readOnly = (): never => {
    throw 'read-only';
  };
  function wrap(d: object, mode: Mode, isPreopen: boolean): object {
    const desc = d as Descriptor;
    const proto = Object.getPrototypeOf(d) as Record<string, (...a: unknown[]) => unknown>;
    modes.set(d, mode);
    if (mode === 'ro') for (const m of MUTATING) desc[m] = readOnly;
    else {
      // rw: refuse a read-only target in cross-descriptor operations
      desc.renameAt = function (oldPath: unknown, newDesc: object, newPath: unknown) {
        if (modes.get(newDesc) !== 'rw') throw 'read-only';
        return proto.renameAt!.call(d, oldPath, newDesc, newPath);
      };
      desc.linkAt = function (flags: unknown, oldPath: unknown, newDesc: object, newPath: unknown) {
        if (modes.get(newDesc) !== 'rw') throw 'read-only';
        return proto.linkAt!.call(d, flags, oldPath, newDesc, newPath);
      };
    }
    desc.openAt = function (pathFlags: unknown, path: unknown, openFlags: Record<string, boolean>, flags: Record<string, boolean>) {
      if (mode === 'ro' && (openFlags?.create || openFlags?.truncate || flags?.write || flags?.mutateDirectory)) throw 'read-only';
      const child = proto.openAt!.call(d, pathFlags, path, openFlags, flags) as object;
      return wrap(child, mode, false);
    };
    if (isPreopen) {
      // preview2-shim 0.26.1: readDirectory() on a preopen throws bad-descriptor; go through openAt('.').
      desc.readDirectory = function () {
        const self = (desc.openAt as (...a: unknown[]) => Descriptor)({ symlinkFollow: false }, '.', { directory: true }, { read: true });
        return (self.readDirectory as () => unknown)();
      };
    }
    return d;
  }
  return { wrap, modeOf: (d) => modes.get(d) };
}
