#!/usr/bin/env bats
# tracecluster info: summary of a trace set, and every way a set can be bad.

load helper

setup_file() {
	export SET="$BATS_FILE_TMPDIR/st"
	tracecluster synth --pattern stencil2d --ranks 16 --iters 5 -o "$SET" >/dev/null
}

setup() {
	cp -r "$SET" "$BATS_TEST_TMPDIR/set"
	S="$BATS_TEST_TMPDIR/set"
}

@test "info: text summary of a complete set" {
	run -0 tc info "$S"
	assert_output --partial "16 present, world size 16"
	assert_output --partial "MPI_Isend"
	assert_output --regexp "missing: +none"
	assert_output --regexp "duplicates: +none"
}

@test "info --json: schema, ranks, events and per-file counts agree" {
	run -0 tc info --json "$S"
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["schema"] == 2
assert d["ranks"] == 16 and d["world_size"] == 16
assert len(d["files"]) == 16
assert [f["rank"] for f in d["files"]] == list(range(16))
assert sum(f["events"] for f in d["files"]) == d["events"] > 0
assert sum(f["bytes"] for f in d["files"]) == d["bytes"]
assert sum(d["ops"].values()) == d["events"]
assert d["missing"] == [] and d["duplicates"] == []
assert d["callsites"] > 0
'
}

@test "info: event count equals the number of events dump prints" {
	n=0
	for f in "$S"/rank-*.tcr; do
		k=$(tc dump "$f" | wc -l)
		n=$((n + k))
	done
	run -0 tc info --json "$S"
	[[ "$output" == *"\"events\":$n,"* ]]
}

@test "info: output is identical for -j1 and -j2" {
	tc -j1 info --json "$S" >a.json
	tc -j2 info --json "$S" >b.json
	cmp a.json b.json
	tc info -j1 "$S" >a.txt
	tc info -j2 "$S" >b.txt
	cmp a.txt b.txt
}

@test "info: a single file is a set of one" {
	run -1 tc info "$S/rank-00003.tcr"
	assert_output --partial "1 present, world size 16"
	assert_line --partial "missing"
}

@test "info: empty directory is an error" {
	mkdir empty
	run -1 --separate-stderr tc info empty
	assert_equal "$stderr" "tracecluster: 'empty': no trace files (*.tcr) in directory"
}

@test "info: nonexistent directory is an error" {
	run -1 --separate-stderr tc info nowhere
	assert_equal "$stderr" "tracecluster: cannot open 'nowhere': No such file or directory"
}

@test "info: a missing rank is reported and fails" {
	rm "$S/rank-00007.tcr"
	run -1 --separate-stderr tc info "$S"
	assert_output --regexp "missing: +7"
	assert_equal "$stderr" "tracecluster: '$S': rank 7 missing (world size 16)"
}

@test "info --json: missing ranks are listed" {
	rm "$S/rank-00007.tcr" "$S/rank-00015.tcr"
	run -1 --separate-stderr tc info --json "$S"
	[[ "$output" == *'"missing":[7,15]'* ]]
	[[ "$stderr" == *"2 ranks missing (first 7; world size 16)"* ]]
}

@test "info: a duplicate rank is reported and fails" {
	cp "$S/rank-00004.tcr" "$S/copy-of-4.tcr"
	run -1 --separate-stderr tc info "$S"
	assert_output --regexp "duplicates: +4"
	[[ "$stderr" == *"rank 4 appears twice"* ]]
}

@test "info: world sizes that disagree fail" {
	tc synth --pattern stencil1d --ranks 4 --iters 2 -o other >/dev/null
	cp other/rank-00002.tcr "$S/rank-00002.tcr"
	run -1 --separate-stderr tc info "$S"
	[[ "$stderr" == *"world size 4 differs from 16"* ]]
}

@test "info: truncated block names file and offset; --salvage reads the rest" {
	f="$S/rank-00005.tcr"
	size=$(stat -c %s "$f")
	truncate -s $((size - 10)) "$f"
	run -1 --separate-stderr tc info "$S"
	[[ "$stderr" =~ ^tracecluster:\ \'$f\':\ byte\ [0-9]+:\ truncated ]]
	[ "$(echo "$stderr" | wc -l)" -eq 1 ]
	run -0 --separate-stderr tc info --salvage "$S"
	[[ "$stderr" == *"warning: '$f': salvaged"* ]]
	assert_output --partial "(salvaged)"
}

@test "info: flipped byte in a block is a checksum error at that block" {
	f="$S/rank-00001.tcr"
	corrupt_byte "$f" 60
	run -1 --separate-stderr tc info "$S"
	[[ "$stderr" =~ ^tracecluster:\ \'$f\':\ byte\ [0-9]+:\ block\ checksum\ mismatch$ ]]
}

@test "info: wrong magic" {
	printf 'this is not a trace file at all' >"$S/rank-00002.tcr"
	run -1 --separate-stderr tc info "$S"
	assert_equal "$stderr" "tracecluster: '$S/rank-00002.tcr': byte 0: not a tracecluster raw trace (bad magic)"
}

@test "info: empty file" {
	: >"$S/rank-00002.tcr"
	run -1 --separate-stderr tc info "$S"
	assert_equal "$stderr" "tracecluster: '$S/rank-00002.tcr': byte 0: empty file"
}

@test "info: future major version" {
	printf '\002\000\007' | dd of="$S/rank-00000.tcr" bs=1 seek=8 conv=notrunc status=none
	run -1 --separate-stderr tc info "$S"
	assert_equal "$stderr" "tracecluster: '$S/rank-00000.tcr': byte 8: unsupported format version 2.7 (this reader knows 1.x)"
}

@test "info: absurd block length is refused before allocating" {
	f="$S/rank-00003.tcr"
	# the second block starts after the 16-byte file header and the header block
	hlen=$(od -An -tu4 -j 20 -N4 "$f" | tr -d ' ')
	off=$((16 + 32 + hlen))
	printf '\377\377\377\177' | dd of="$f" bs=1 seek=$((off + 4)) conv=notrunc status=none
	run -1 --separate-stderr tc info "$S"
	assert_equal "$stderr" "tracecluster: '$f': byte $((off + 4)): absurd block size (2147483647 stored, $(od -An -tu4 -j $((off + 8)) -N4 "$f" | tr -d ' ') decoded bytes)"
}

@test "info: absurd record count is refused" {
	f="$S/rank-00003.tcr"
	hlen=$(od -An -tu4 -j 20 -N4 "$f" | tr -d ' ')
	off=$((16 + 32 + hlen))
	printf '\377\377\377\077' | dd of="$f" bs=1 seek=$((off + 12)) conv=notrunc status=none
	run -1 --separate-stderr tc info "$S"
	[[ "$stderr" == *"byte $((off + 12)): absurd record count"* ]]
}

@test "info: usage errors exit 2" {
	run -2 --separate-stderr tc info
	[[ "$stderr" == *"missing DIR"* ]]
	run -2 --separate-stderr tc info --bogus "$S"
	[[ "$stderr" == *"unknown option"* ]]
	run -2 tc info "$S" "$S"
	run -2 tc -j x info "$S"
}

@test "info: the input in JSON, spans in human units in text" {
	run -0 tc info --json "$SET"
	python3 -c 'import json, sys; d = json.loads(sys.argv[1]); assert d["input"] == sys.argv[2], d' "$output" "$SET"
	run -0 tc info "$SET"
	assert_line --regexp "^time span: +[0-9.]+ (s|ms|µs|ns)$"
	assert_line --regexp "^ +0 +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+ (s|ms|µs|ns)  rank-00000.tcr$"
}
