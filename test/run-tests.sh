#!/bin/sh
# Run every C unit test, each fuzz target over its seed corpus and every
# Bats file; print "N passed, N failed, N skipped", then the closing line
# "N passed, N failed", counting each unit test case, each fuzz target and
# each Bats test (a skipped test counts as neither passed nor failed).
# Usage: sh test/run-tests.sh BUILD_DIR
set -u
build=${1:-build/default}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# sanitizer builds: leaks inside third-party libraries, for the unit tests
# too (test/helper.bash sets the same for the Bats files)
LSAN_OPTIONS="suppressions=$top/test/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS

pass=0
fail=0
count() { # reads TAP on stdin, echoes it, tallies into $log
	while IFS= read -r line; do
		printf '%s\n' "$line"
		case $line in
		"ok "*" # skip"*|"ok "*" # SKIP"*) echo S >>"$log" ;;
		"ok "*) echo P >>"$log" ;;
		"not ok "*) echo F >>"$log" ;;
		esac
	done
}

echo "# unit tests"
for t in "$build"/test/unit/test_*; do
	[ -x "$t" ] || continue
	case $t in *.o|*.d) continue ;; esac
	out=$(mktemp)
	if [ "${VALGRIND:-}" = 1 ]; then
		valgrind -q --error-exitcode=99 --leak-check=full "$t" >"$out" 2>&1
	else
		"$t" >"$out" 2>&1
	fi
	rc=$?
	count <"$out"
	# cases a crashed binary never reported count as failures
	want=$("$t" --count 2>/dev/null || echo 0)
	got=$(grep -c -E '^(not )?ok ' "$out")
	if [ "$got" -lt "$want" ] || { [ "$rc" -ne 0 ] && ! grep -q '^not ok ' "$out"; }; then
		echo "not ok - $(basename "$t"): exited with status $rc after $got of $want cases"
		echo F >>"$log"
	fi
	rm -f "$out"
done

# each fuzz target once over its seed corpus (make fuzz-build; clang)
echo "# fuzz corpora"
have_fuzz=
for t in build/fuzz/fuzz_*; do
	[ -x "$t" ] || continue
	have_fuzz=1
	name=${t##*/fuzz_}
	out=$(mktemp)
	if "$t" -runs=0 "test/fuzz/corpus/$name" >"$out" 2>&1; then
		echo "ok - fuzz $name: seed corpus replays cleanly"
	else
		sed 's/^/# /' "$out" | tail -40
		echo "not ok - fuzz $name: seed corpus replay failed"
	fi | count
	rm -f "$out"
done
[ -n "$have_fuzz" ] || echo "# fuzz targets not built (no clang): corpus replay skipped"

echo "# bats tests"
jobs=${J:-}
if [ -z "$jobs" ]; then jobs=1; fi
files=$(ls test/*.bats 2>/dev/null)
if [ -n "$files" ]; then
	if [ "$jobs" -gt 1 ] && command -v parallel >/dev/null 2>&1; then
		bats --tap --jobs "$jobs" $files 2>&1 | count
	else
		bats --tap $files 2>&1 | count
	fi
fi

pass=$(grep -c P "$log")
fail=$(grep -c F "$log")
skip=$(grep -c S "$log")
echo
# skipped tests (a missing optional MPI, no mount rights) are neither
echo "$pass passed, $fail failed, $skip skipped"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
