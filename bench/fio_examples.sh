#!/usr/bin/env bash
# Run every job file of fio's own examples/ folder through `nastwin run --fio`
# and classify each: ok (exit 0), refused (exit 2, one message), fail (exit 1),
# crash (killed by a signal) or timeout.  fio's examples are not part of this
# tree: take them from fio's source (Debian: `apt-get source fio`, fio 3.33's
# examples/ has 86 job files) and pass the folder.
#
#   bench/fio_examples.sh EXAMPLES_DIR [NASTWIN] [--time DURATION] [--timeout S] [-v]
#
# Each job runs from a copy of EXAMPLES_DIR (include= paths resolve there), with
# --time (default 0.2s: simulated time, to keep the run short) and a wall timeout
# (default 120 s).  For a refusal, the report shows how many `error:` lines the
# one message lists.  Last line: `ok=N refused=N fail=N crash=N timeout=N total=N`.
# Exit 0 when nothing crashed, failed or timed out.
set -u
dir=${1:?usage: bench/fio_examples.sh EXAMPLES_DIR [NASTWIN] [--time D] [--timeout S] [-v]}
shift
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$here/build/nastwin
simtime=0.2s
wall=120
verbose=0
while [ $# -gt 0 ]; do
  case $1 in
    --time) simtime=$2; shift ;;
    --timeout) wall=$2; shift ;;
    -v) verbose=1 ;;
    *) bin=$1 ;;
  esac
  shift
done
[ -x "$bin" ] || { echo "no nastwin binary at $bin" >&2; exit 1; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cp -r "$dir"/. "$work/"
declare -A count=([ok]=0 [refused]=0 [fail]=0 [crash]=0 [timeout]=0)
total=0
for f in "$work"/*.fio; do
  name=$(basename "$f")
  total=$((total + 1))
  (cd "$work" && timeout "$wall" "$bin" run --fio "$name" --time "$simtime" >"$work/.out" 2>"$work/.err")
  rc=$?
  case $rc in
    0) what=ok ;;
    2) what=refused ;;
    124) what=timeout ;;
    1) what=fail ;;
    *) what=crash ;;
  esac
  count[$what]=$((count[$what] + 1))
  nerr=$(grep -c 'error:' "$work/.err")
  line="$what $name"
  [ "$what" = ok ] || line="$line rc=$rc errors=$nerr"
  echo "$line"
  if [ "$what" != ok ] && { [ $verbose = 1 ] || [ "$what" != refused ]; }; then
    sed 's/^/    /' "$work/.err" | head -20
  elif [ "$what" = refused ]; then
    grep 'error:' "$work/.err" | head -3 | cut -c1-200 | sed 's/^/    /'
  fi
done
echo "ok=${count[ok]} refused=${count[refused]} fail=${count[fail]} crash=${count[crash]} timeout=${count[timeout]} total=$total"
[ $((count[fail] + count[crash] + count[timeout])) = 0 ]
