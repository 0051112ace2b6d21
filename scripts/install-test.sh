#!/usr/bin/env bash
# install-test.sh BUILD_DIR: install the build to a temporary prefix, move
# the prefix elsewhere (the binary must find its data relative to itself),
# and run it there: `run`, `validate --only` one experiment, the man page
# and the bash completion.  Run by ctest (install_relocated).
set -u
build=${1:?usage: install-test.sh BUILD_DIR}
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "install-test: FAIL: $*" >&2; exit 1; }
cmake --install "$build" --prefix "$t/p" >/dev/null || fail "cmake --install"
mv "$t/p" "$t/moved" || fail "cannot move the prefix"
p=$t/moved
unset NASTWIN_DATA
for f in bin/nastwin share/man/man1/nastwin.1 share/bash-completion/completions/nastwin \
         share/nastwin/catalog/systems.yaml share/nastwin/validation/points.yaml \
         share/nastwin/validation/calibrated.yaml share/nastwin/scenarios/drive-datasheet.yaml; do
  [ -e "$p/$f" ] || fail "$f not installed"
done
"$p/bin/nastwin" run --time 0.2s >"$t/run.out" 2>"$t/run.err" || fail "installed run: $(cat "$t/run.err")"
grep -q "read : IOPS=" "$t/run.out" || fail "installed run printed no read line"
# One review experiment, its scenario named relative to the installed points.yaml.
exp=$(sed -n 's/.*experiment: \(ds2015xs-iperf\),.*/\1/p' "$p/share/nastwin/validation/points.yaml" | head -1)
[ -n "$exp" ] || fail "no ds2015xs-iperf point in the installed points.yaml"
"$p/bin/nastwin" validate --only "$exp" -j 1 >"$t/val.out" 2>"$t/val.err" || fail "installed validate --only $exp: $(cat "$t/val.err")"
grep -q "$exp" "$t/val.out" || fail "validate output does not name $exp"
# The data really comes from the prefix: without its catalogue the run fails.
rm "$p/share/nastwin/catalog/systems.yaml"
if "$p/bin/nastwin" run --time 0.2s >/dev/null 2>"$t/gone.err"; then
  fail "run succeeded without the installed catalogue (data read from elsewhere)"
fi
grep -q "systems.yaml" "$t/gone.err" || fail "missing catalogue not named: $(cat "$t/gone.err")"
if command -v man >/dev/null; then
  out=$(MANWIDTH=80 man -l "$p/share/man/man1/nastwin.1" 2>&1) || fail "man -l failed"
  for word in run check sweep merge explain size drives validate calibrate "EXIT STATUS" --output-format; do
    grep -q -- "$word" <<<"$out" || fail "man page lacks '$word'"
  done
fi
bash -c "source '$p/share/bash-completion/completions/nastwin' && complete -p nastwin" >/dev/null \
  || fail "bash completion does not register"
echo "install-test: ok"
