#!/usr/bin/env bats
# tracecluster dump: events of one file as text and JSON lines.

load helper

setup_file() {
	export SET="$BATS_FILE_TMPDIR/st"
	tracecluster synth --pattern stencil2d --ranks 9 --iters 3 -o "$SET" >/dev/null
}

@test "dump: text lines, one per event, MPI_Init first and MPI_Finalize last" {
	run -0 tc dump "$SET/rank-00004.tcr"
	assert_line --index 0 --partial "MPI_Init"
	assert_line --index $((${#lines[@]} - 1)) --partial "MPI_Finalize"
	assert_output --partial "MPI_Isend"
}

@test "dump --json: every line parses and has the required keys" {
	tc dump --json "$SET/rank-00004.tcr" >ev.jsonl
	python3 - ev.jsonl <<'PY'
import json, sys
n = 0
for line in open(sys.argv[1]):
    o = json.loads(line)
    assert o["record"] == "event"
    for k in ("op", "callsite", "peer", "tag", "count", "bytes", "t_start", "t_end"):
        assert k in o, k
    assert o["op"].startswith("MPI_")
    assert o["t_end"] >= o["t_start"]
    if o["op"] in ("MPI_Isend", "MPI_Irecv"):
        assert isinstance(o["peer"], int) and o["peer"] != 4
        assert o["bytes"] == o["count"] * o["datatype_size"]
    n += 1
assert n > 10
PY
}

@test "dump: interior rank of a 3x3 grid talks to its four neighbours" {
	run -0 bash -c "tracecluster dump --json '$SET/rank-00004.tcr' | grep '\"MPI_Isend\"' | grep -o '\"peer\":[0-9]*' | sort -u"
	assert_output $'"peer":1\n"peer":3\n"peer":5\n"peer":7'
}

@test "dump --rank R DIR equals dump of the file" {
	tc dump --rank 2 "$SET" >a
	tc dump "$SET/rank-00002.tcr" >b
	cmp a b
}

@test "dump --header --callsites --comms --no-events" {
	run -0 tc dump --header --callsites --comms --no-events "$SET/rank-00000.tcr"
	assert_output --partial "rank:        0 of 9"
	assert_output --regexp "callsite 0 0x[0-9a-f]{16}"
	assert_output --partial "comm 0 size=9"
	refute_output --partial "MPI_Isend"
	run -0 tc dump --json --header --callsites --comms --no-events "$SET/rank-00000.tcr"
	assert_line --index 0 --partial '"record":"header"'
	assert_output --partial '"record":"callsite"'
	assert_output --partial '"record":"comm"'
}

@test "dump --limit N prints N events" {
	run -0 tc dump --limit 7 "$SET/rank-00000.tcr"
	[ "${#lines[@]}" -eq 7 ]
}

@test "dump: a call site has the same signature on every rank" {
	a=$(tc dump --json "$SET/rank-00000.tcr" | head -1 | grep -o '"callsite":"[^"]*"')
	b=$(tc dump --json "$SET/rank-00008.tcr" | head -1 | grep -o '"callsite":"[^"]*"')
	[ -n "$a" ] && [ "$a" = "$b" ]
}

@test "dump: flipped byte fails with file and offset; --salvage warns" {
	cp "$SET/rank-00001.tcr" f.tcr
	size=$(stat -c %s f.tcr)
	corrupt_byte f.tcr $((size - 20))
	run -1 --separate-stderr tc dump f.tcr
	[[ "$stderr" =~ ^tracecluster:\ \'f.tcr\':\ byte\ [0-9]+:\ block\ checksum\ mismatch$ ]]
	run -0 --separate-stderr tc dump --salvage f.tcr
	[[ "$stderr" == *"warning: 'f.tcr': salvaged"* ]]
}

@test "dump: truncated file" {
	cp "$SET/rank-00001.tcr" t.tcr
	truncate -s 100 t.tcr
	run -1 --separate-stderr tc dump t.tcr
	[[ "$stderr" =~ ^tracecluster:\ \'t.tcr\':\ byte\ [0-9]+:\ truncated ]]
}

@test "dump: usage errors" {
	run -2 --separate-stderr tc dump
	[[ "$stderr" == *"missing FILE"* ]]
	run -2 --separate-stderr tc dump "$SET"
	[[ "$stderr" == *"is a directory: give --rank R"* ]]
	run -2 tc dump --limit -3 "$SET/rank-00000.tcr"
	run -1 tc dump nonexistent.tcr
}
