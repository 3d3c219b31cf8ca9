/**
 * What a sandboxed command can read. Not the host's `/`: a fresh root holding only
 *
 * - the system, read-only: /usr, /bin, /sbin, /lib*, /etc, /nix (those that exist; symlinks
 *   such as /bin → usr/bin are recreated as symlinks);
 * - a minimal /dev, its own /proc, and empty private /tmp, /var/tmp and $HOME (tmpfs, gone after it);
 * - read-only, from outside the system (sandbox_exposed.ts): the repository the root belongs to,
 *   the toolchains on PATH, and git's identity files (~/.gitconfig, ~/.config/git/{config,ignore,
 *   attributes});
 * - the root, read-write (bound by bwrap.ts between `base` and `masks`).
 *
 * Everything else — other homes, /root, /opt, /srv, /mnt, /media, /run, /var, /boot, /sys — does not exist
 * in it, and symlinks from the root to there dangle. Over what is visible, `masks` hides credentials
 * (an empty read-only tmpfs over a directory, /dev/null over a file; the files are not touched): the
 * CREDENTIALS under $HOME, ETC_SECRETS, every --deny-read path and every path in the root a
 * read-deny rule matches (found by walking the root when a rule is a pattern, not a plain path).
 */
import { readlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import picomatch from 'picomatch';
import { inside } from '../core/paths.ts';
import { type DenySpec, denyTest } from '../search/denied.ts';
import {
  listDir,
  listDirents,
  lstatOrUndefined,
  realOrUndefined,
  repositoryDirs,
  statOrUndefined,
  tooBroadFor,
  toolchains,
} from './exposed.ts';
import { helperNode } from './proxy_launch.ts';

interface ViewConfig {
  root: string;
  allowNet: boolean;
  /** Node runs the proxy's helper inside (proxy_launch.ts): its binary must be there. */
  proxyNet?: boolean;
  /** --deny-read paths, absolute. */
  denyRead?: readonly string[];
  /** Deny rules of the read tools, relative to the root (lib/policy/read_deny.ts). */
  denyRules?: DenySpec;
}

interface View {
  /** Mounts that come before the root's bind. */
  base: string[];
  /** Mounts that come after the root's and the protected locations' binds. */
  masks: string[];
}

const SYSTEM = ['usr', 'bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32', 'etc', 'nix'];

/** Credential locations relative to $HOME. */
const CREDENTIALS = [
  '.ssh',
  '.aws',
  '.gnupg',
  '.config/gcloud',
  '.kube',
  '.docker/config.json',
  '.netrc',
  '.npmrc',
  '.git-credentials',
  '.config/git/credentials',
  '.config/gh',
  '.azure',
  '.pypirc',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.gem/credentials',
  '.vault-token',
  '.password-store',
  '.local/share/keyrings',
];

/** Secrets of the system that sit among readable files. */
const ETC_SECRETS = [
  '/etc/shadow',
  '/etc/shadow-',
  '/etc/gshadow',
  '/etc/gshadow-',
  '/etc/security/opasswd',
  '/etc/ssl/private',
  '/etc/krb5.keytab',
];

const GIT_IDENTITY = ['.gitconfig', '.config/git/config', '.config/git/ignore', '.config/git/attributes'];

export function sandboxView(c: ViewConfig, env: Readonly<Record<string, string>>): View {
  const home = env.HOME || homedir();
  const base: string[] = [];
  const shown: string[] = [c.root]; // what is visible, for deciding which masks are needed
  for (const d of SYSTEM) {
    const p = `/${d}`;
    const st = lstatOrUndefined(p);
    if (st?.isSymbolicLink()) base.push('--symlink', readlinkSync(p), p);
    else if (st?.isDirectory()) {
      base.push('--ro-bind', p, p);
      shown.push(p);
    }
  }
  base.push('--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--tmpfs', '/var/tmp');
  if (!inside(home, c.root)) base.push('--tmpfs', home);
  const tooBroad = tooBroadFor(home);
  for (const t of [...repositoryDirs(c.root, tooBroad), ...toolchains(env.PATH ?? '', tooBroad, shown)]) {
    if (shown.some((s) => inside(t, s))) continue;
    base.push('--ro-bind', t, t);
    shown.push(t);
  }
  for (const rel of GIT_IDENTITY) {
    const p = path.join(home, rel);
    const real = realOrUndefined(p);
    if (real && statOrUndefined(real)?.isFile() && !inside(p, c.root)) {
      base.push('--ro-bind', real, p);
      shown.push(p);
    }
  }
  const node = c.proxyNet ? helperNode() : undefined;
  if (node && !shown.some((s) => inside(node, s))) {
    base.push('--ro-bind', node, node);
    shown.push(node);
  }
  if (c.allowNet) {
    // DNS: /etc/resolv.conf is often a link into /run, which is otherwise not there.
    const resolv = realOrUndefined('/etc/resolv.conf');
    if (resolv && !shown.some((s) => inside(resolv, s))) base.push('--ro-bind', resolv, resolv);
  }

  const masks: string[] = [];
  const masked = new Set<string>();
  const mask = (p: string) => {
    const real = realOrUndefined(p);
    if (!real || masked.has(real) || !shown.some((s) => inside(real, s))) return;
    masked.add(real);
    if (statOrUndefined(real)?.isDirectory()) masks.push('--tmpfs', real, '--remount-ro', real);
    else masks.push('--ro-bind', '/dev/null', real);
  };
  for (const rel of CREDENTIALS) mask(path.join(home, rel));
  for (const p of ETC_SECRETS) mask(p);
  for (const p of sshHostKeys()) mask(p);
  for (const p of c.denyRead ?? []) mask(p);
  for (const p of deniedByRules(c.root, c.denyRules)) mask(p);
  masks.push('--remount-ro', '/');
  return { base, masks };
}

/** Paths in the root that the read-deny rules cover: plain paths directly, patterns by a walk of the root. */
export function deniedByRules(root: string, spec: DenySpec | undefined): string[] {
  if (!spec) return [];
  const plain: string[] = [];
  let walk = spec.regexes.length > 0 || (spec.only?.length ?? 0) > 0; // a negated rule: all but its matches
  for (const g of spec.globs) {
    const stem = g === '**' ? '' : g.endsWith('/**') ? g.slice(0, -3) : g;
    if (stem === '' || !picomatch.scan(stem).isGlob) plain.push(path.join(root, stem));
    else walk = true;
  }
  if (!walk) return plain;
  const test = denyTest(spec, root, root);
  if (!test) return plain;
  const out: string[] = [...plain];
  const queue = [''];
  for (let rel = queue.shift(); rel !== undefined; rel = queue.shift()) {
    for (const d of listDirents(path.join(root, rel))) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (test(r)) out.push(path.join(root, r));
      else if (d.isDirectory()) queue.push(r);
    }
  }
  return out;
}

function sshHostKeys(): string[] {
  return listDir('/etc/ssh')
    .filter((n) => n.startsWith('ssh_host_') && n.endsWith('_key'))
    .map((n) => path.join('/etc/ssh', n));
}
