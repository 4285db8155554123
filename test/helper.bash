# Shared setup for every Bats file: load with `load helper`.
#
# Puts the freshly built tracecluster first on PATH, runs in C locale, and
# works in $BATS_TEST_TMPDIR. Helpers:
#   tc ARGS...          run tracecluster (same as `tracecluster`)
#   synth_set DIR ARGS  write a synth trace set (cached per file via setup_file)
#   corrupt_byte FILE OFFSET   flip all bits of one byte
#   shared_dir          path of ../shared when it exists, else empty

bats_require_minimum_version 1.5.0

TC_ROOT="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
export PATH="$TC_ROOT/bin:$PATH"
export LC_ALL=C
unset TRACECLUSTER_THREADS
# sanitizer builds: leaks inside third-party libraries (test/lsan.supp)
export LSAN_OPTIONS="suppressions=$TC_ROOT/test/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

bats_load_library bats-support 2>/dev/null || load '/usr/lib/bats/bats-support/load'
bats_load_library bats-assert 2>/dev/null || load '/usr/lib/bats/bats-assert/load'

tc() {
	tracecluster "$@"
}

corrupt_byte() {
	local file=$1 off=$2 b
	b=$(od -An -tu1 -j "$off" -N1 "$file" | tr -d ' ')
	printf "$(printf '\\%03o' $((b ^ 255)))" |
		dd of="$file" bs=1 seek="$off" conv=notrunc status=none
}

shared_dir() {
	local d="$TC_ROOT/../shared"
	[ -d "$d" ] && (cd "$d" && pwd)
}

cd "$BATS_TEST_TMPDIR" 2>/dev/null || true
