/**
 * The sandbox's seccomp filter, as the classic-BPF bytes bubblewrap's `--seccomp FD` loads. A small
 * fixed program, written out here instead of compiled with libseccomp (no native build step):
 *
 * - `socket(AF_UNIX, …)` fails with EPERM. A Unix-domain socket is the one way out of the sandbox's
 *   network namespace to a host daemon (a Docker socket, an agent, a database): it is reached by a path,
 *   and paths are shared. Other families are left to the network namespace.
 * - `socketpair(AF_UNIX, SOCK_DGRAM, …)` fails too: an unbound datagram socket can `sendto()` any
 *   path-bound datagram socket on the host. Stream and seqpacket pairs — what libuv, Node's
 *   child_process and most IPC use — cannot address anyone else, and stay allowed.
 * - `socketcall()` (32-bit x86's multiplexer) is refused for SYS_SOCKET and SYS_SOCKETPAIR: its
 *   arguments sit behind a pointer the filter cannot read.
 * - io_uring is refused whole: its operations (IORING_OP_SOCKET, IORING_OP_CONNECT) do not pass
 *   through the system calls above.
 * - A process of an architecture the program does not know is killed.
 *
 * Numbers are the kernel's UAPI (linux/audit.h, asm/unistd*.h, linux/filter.h, linux/seccomp.h).
 */

/** Per architecture: its audit value and the numbers of the calls the filter looks at. */
interface Arch {
  audit: number;
  socket: number;
  socketpair: number;
  socketcall?: number;
  /** x32 calls on x86-64 carry this bit; it is cleared before comparing. */
  clearBit?: number;
}

const IO_URING = [425, 426, 427]; // io_uring_setup, io_uring_enter, io_uring_register: the same everywhere

const ARCHES: readonly Arch[] = [
  { audit: 0xc000003e, socket: 41, socketpair: 53, clearBit: 0x40000000 }, // x86-64 (and x32)
  { audit: 0x40000003, socket: 359, socketpair: 360, socketcall: 102 }, // i386
  { audit: 0xc00000b7, socket: 198, socketpair: 199 }, // aarch64
  { audit: 0x40000028, socket: 281, socketpair: 288 }, // arm (EABI)
];

const AF_UNIX = 1;
const SOCK_DGRAM = 2;
const SOCK_TYPE_MASK = 0xf; // without SOCK_NONBLOCK / SOCK_CLOEXEC
const SYS_SOCKET = 1;
const SYS_SOCKETPAIR = 8;
const EPERM = 1;

const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const RET_KILL_PROCESS = 0x80000000;

// Offsets in struct seccomp_data: nr, arch, instruction_pointer, args[6] (little-endian: low word first).
const OFF_NR = 0;
const OFF_ARCH = 4;
const offArg = (i: number) => 16 + 8 * i;

// Classic BPF opcodes.
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const AND_K = 0x54;
const RET_K = 0x06;

type Insn =
  | { op: number; k: number }
  | { op: typeof JEQ_K; k: number; jt: string | 0; jf: string | 0 }
  | { label: string };

/** Assembles instructions with symbolic forward jumps into struct sock_filter bytes. */
function assemble(prog: readonly Insn[]): Buffer {
  const at = new Map<string, number>();
  const code: Exclude<Insn, { label: string }>[] = [];
  for (const i of prog) {
    if ('label' in i) at.set(i.label, code.length);
    else code.push(i);
  }
  const out = Buffer.alloc(code.length * 8);
  code.forEach((i, n) => {
    const rel = (to: string | 0 | undefined) => {
      if (to === undefined || to === 0) return 0;
      const target = at.get(to);
      if (target === undefined || target <= n || target - n - 1 > 255) throw new Error(`bad jump to ${to}`);
      return target - n - 1;
    };
    out.writeUInt16LE(i.op, n * 8);
    out.writeUInt8('jt' in i ? rel(i.jt) : 0, n * 8 + 2);
    out.writeUInt8('jf' in i ? rel(i.jf) : 0, n * 8 + 3);
    out.writeUInt32LE(i.k >>> 0, n * 8 + 4);
  });
  return out;
}

/** The filter as bytes for `bwrap --seccomp FD` (little-endian hosts: x86-64, aarch64). */
export function unixSocketFilter(): Buffer {
  const p: Insn[] = [{ op: LD_W_ABS, k: OFF_ARCH }];
  ARCHES.forEach((a, n) => {
    p.push({ op: JEQ_K, k: a.audit, jt: `arch${n}`, jf: 0 });
  });
  p.push({ op: RET_K, k: RET_KILL_PROCESS });
  ARCHES.forEach((a, n) => {
    p.push({ label: `arch${n}` }, { op: LD_W_ABS, k: OFF_NR });
    if (a.clearBit) p.push({ op: AND_K, k: ~a.clearBit >>> 0 });
    p.push({ op: JEQ_K, k: a.socket, jt: `socket${n}`, jf: 0 });
    p.push({ op: JEQ_K, k: a.socketpair, jt: `pair${n}`, jf: 0 });
    if (a.socketcall !== undefined) p.push({ op: JEQ_K, k: a.socketcall, jt: `call${n}`, jf: 0 });
    for (const nr of IO_URING) p.push({ op: JEQ_K, k: nr, jt: 'deny', jf: 0 });
    p.push({ op: JEQ_K, k: 0, jt: 'allow', jf: 'allow' });
    p.push({ label: `socket${n}` }, { op: LD_W_ABS, k: offArg(0) });
    p.push({ op: JEQ_K, k: AF_UNIX, jt: 'deny', jf: 'allow' });
    p.push({ label: `pair${n}` }, { op: LD_W_ABS, k: offArg(0) });
    p.push({ op: JEQ_K, k: AF_UNIX, jt: 0, jf: 'allow' });
    p.push({ op: LD_W_ABS, k: offArg(1) }, { op: AND_K, k: SOCK_TYPE_MASK });
    p.push({ op: JEQ_K, k: SOCK_DGRAM, jt: 'deny', jf: 'allow' });
    if (a.socketcall !== undefined) {
      p.push({ label: `call${n}` }, { op: LD_W_ABS, k: offArg(0) });
      p.push({ op: JEQ_K, k: SYS_SOCKET, jt: 'deny', jf: 0 });
      p.push({ op: JEQ_K, k: SYS_SOCKETPAIR, jt: 'deny', jf: 'allow' });
    }
  });
  p.push({ label: 'allow' }, { op: RET_K, k: RET_ALLOW });
  p.push({ label: 'deny' }, { op: RET_K, k: RET_ERRNO | EPERM });
  return assemble(p);
}
