#!/usr/bin/env bash
# Runs a command (default: the tests, `node --import tsx test/run.ts`) with a fresh, private TMPDIR and
# reports what it left behind: anything in that TMPDIR but tsx's compile cache and the runtime's
# shared mewcode-spill (empty roots), -locks, -journal and -sandbox (seccomp filter) directories; processes still alive that carry
# that TMPDIR or name a path in it (the bash tool passes TMPDIR on, in and out of the sandbox; the
# tests' children get roots in it); and new entries in /tmp itself, for anything that ignores TMPDIR
# (on a shared machine, other users' files show up there too).
# Exit status: the command's, or 3 when something was left behind.
# Usage: test/leftovers.sh [command...]
set -uo pipefail
cd "$(dirname "$0")/.."
((${#@})) || set -- node --import tsx test/run.ts
run_tmp=$(mktemp -d "${TMPDIR:-/tmp}/mewcode-leftovers.XXXXXX")
# /tmp's own entries, and the roots of its spill directories (which exist before the run): a child
# given no TMPDIR spills there, where the test that removes its files by its own TMPDIR never looks.
in_tmp() { { find /tmp -mindepth 1 -maxdepth 1; find /tmp/mewcode-spill-* -mindepth 1 -maxdepth 1 2>/dev/null; } | sort; }
before=$(in_tmp)

TMPDIR=$run_tmp "$@"
status=$?

left=0
# The runtime's per-user directories are shared by design and stay: the spill directory (a root's own
# is empty once its files are removed, and swept a day after its last spill), locks, the journal, and
# the sandbox's seccomp filter cache (one file per filter). Anything else in them is a leftover.
files=$(cd "$run_tmp" && find . -mindepth 1 -not -path './tsx-*' -not -path './tsx-*/*' \
  -not \( -type d -path './mewcode-*' \( -name 'mewcode-spill*' -o -name 'mewcode-locks*' -o -name 'mewcode-journal*' -o -name 'mewcode-sandbox-*' \) \) \
  -not \( -type d -empty -path './mewcode-spill*/*' \) \
  -not \( -type f -path './mewcode-sandbox-*/unix-socket-filter-*.bpf' \))
if [[ -n $files ]]; then
  echo "leftovers: files in the run's TMPDIR:" >&2
  echo "$files" | head -50 >&2
  left=1
fi
# Children that do not get TMPDIR (an MCP client passes only a few variables) still name a path in it.
procs=$({
  grep -lsxz "TMPDIR=$run_tmp" /proc/[0-9]*/environ
  grep -lsF "$run_tmp" /proc/[0-9]*/cmdline
} | cut -d/ -f3 | sort -un | grep -vx "$$" || true)
if [[ -n $procs ]]; then
  echo "leftovers: processes still running:" >&2
  for pid in $procs; do ps -o pid=,etime=,args= -p "$pid" >&2; done
  left=1
fi
after=$(in_tmp)
new=$(comm -13 <(echo "$before") <(echo "$after") | grep -vx "$run_tmp" || true)
if [[ -n $new ]]; then
  echo "new in /tmp during the run (the tests' or, on a shared machine, someone else's):" >&2
  echo "$new" >&2
fi
if ((left)); then
  echo "leftovers: kept $run_tmp for inspection" >&2
  ((status)) || status=3
else
  echo "leftovers: none (no files, no processes)" >&2
  rm -rf "$run_tmp"
fi
exit "$status"
