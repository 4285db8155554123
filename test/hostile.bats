#!/usr/bin/env bats
# Hostile input: a tiny file whose declared structure stands for far more
# work than its header or its size allow fails at once with one error line
# naming the file and where, exit 1 (formats/tct.md "Readers",
# formats/scalatrace.md section 7).

load helper

setup_file() {
	export SET="$BATS_FILE_TMPDIR/set"
	tracecluster synth --pattern stencil1d --ranks 4 --iters 4 -o "$SET" >/dev/null
}

# one_line_error: the command failed with status 1 and one stderr line
one_line_error() {
	[ "$status" -eq 1 ] || { echo "status $status"; return 1; }
	[ "${#stderr_lines[@]}" -eq 1 ] || { printf '%s\n' "$stderr"; return 1; }
}

@test "tct text: a loop of four billion iterations is refused by its line" {
	tc compress -q --mode none --text "$SET" -o g.tct
	sed '0,/^loop 4 {/s//loop 4000000000 {/' g.tct >bad.tct
	line=$(grep -n '^loop 4000000000 {' bad.tct | cut -d: -f1)
	[ -n "$line" ]
	run --separate-stderr timeout 10 tracecluster expand --rank 0 bad.tct
	one_line_error
	assert_equal "$stderr" "tracecluster: 'bad.tct': the loop at line $line: the rank lists and iteration counts imply far more loop steps than the 88 events the header declares (over all 4 ranks)"
	run --separate-stderr timeout 10 tracecluster replay bad.tct
	one_line_error
}

@test "tct text: loops holding far more events than the header declares are refused" {
	tc compress -q --mode none --text "$SET" -o g.tct
	sed '0,/^loop 4 {/s//loop 40000 {/' g.tct >bad.tct
	run --separate-stderr timeout 10 tracecluster expand --rank 1 bad.tct
	one_line_error
	[[ $stderr == *"'bad.tct': the loop at line "*": the rank lists and iteration counts imply far more "*" than the 88 events the header declares (over all 4 ranks)" ]]
	# the honest trace still expands
	run -0 tc expand --rank 1 g.tct
}

@test "tct text: a loop whose body never holds the rank cannot spin" {
	cat >spin.tct <<'TCT'
tracecluster-tct 1
world 2
ranks [0-1]
events 1
site 0 0x1
trace
loop 4000000000 ranks=[0-1] {
  MPI_Barrier site=0 ranks=[1] n=1 comp=1.000/0.000/1/1 comm=1.000/0.000/1/1
}
end
TCT
	run --separate-stderr timeout 10 tracecluster expand --rank 0 spin.tct
	one_line_error
	[[ $stderr == *"'spin.tct': the loop at line 7: "* ]]
}

@test "tct JSON: a loop of four billion iterations is refused" {
	tc compress -q --mode none --json "$SET" -o g.json
	python3 - <<'PY'
import json
d = json.load(open("g.json"))
for n in d["trace"]:
    if n.get("type") == "loop":
        n["iters"]["variants"][0]["value"] = 4000000000
        break
json.dump(d, open("bad.json", "w"))
PY
	run --separate-stderr timeout 10 tracecluster expand --rank 0 bad.json
	one_line_error
	[[ $stderr == *"'bad.json': the loop at trace["[0-9]*"]: "*"far more"*"than the 88 events the header declares (over all 4 ranks)" ]]
}

@test "scalatrace: a loop of 10^12 iterations stops at the cap for the file's size" {
	sed 's/iter: ( 5 )\[ 1 -1 0 3 1 \]/iter: ( 1000000000000 )[ 1 -1 0 3 1 ]/' \
		"$TC_ROOT/testdata/scalatrace/chain4.st" >bad.st
	grep -q 1000000000000 bad.st
	run --separate-stderr timeout 10 tracecluster info bad.st
	one_line_error
	[[ $stderr == *"'bad.st': line "*": rank 0 expands to more than "*" events, the cap for a file of "*" bytes" ]]
}

@test "scalatrace: rank lists repeating ranks millions of times read in a moment, as their few ranks" {
	# one rank 4,000,101 times (stride 0), and 3,000 x 3,000 overlapping
	# iterations over 6,000 ranks: a few bytes each
	sed 's/iter: ( 5 )\[ 1 -1 0 3 1 \]/iter: ( 5 )[ 2 -1 3 4000101 0 -2 0 3000 1 3000 1 ]/' \
		"$TC_ROOT/testdata/scalatrace/chain4.st" >rep.st
	grep -q 4000101 rep.st
	run --separate-stderr timeout 20 tracecluster info rep.st
	[ "$status" -eq 0 ]
	# ranks 0 .. 5,999 (the loop's list names rank 3 and 0 .. 5,998)
	[[ $output == *"5999 present"* ]]
}

@test "tct: a rank list of the whole of a huge world is refused at once, not expanded" {
	# 16,777,216 ranks each running a 10-step loop: 3 KB standing for 200
	# million events where the header declares 88
	tc compress -q --mode callpath --lead-only --timing none --text "$SET" -o g.tct
	python3 - <<'PY'
import re
t = open("g.tct").read()
t = re.sub(r"(?m)^world 4$", "world 16777216", t)
t = re.sub(r"(?m)^ranks \[0-3\]$", "ranks [0-16777215]", t)
# the trace: every rank runs a loop of one Barrier, no per-node ranks
head = t[:t.index("\ntrace\n") + 7]
site = re.search(r"(?m)^site (\d+) ", head).group(1)
body = ("loop 10 {\n  MPI_Barrier site=%s n=1 comp=0.000/0.000/0/0 comm=0.000/0.000/0/0\n}\nend\n"
        % site)
open("huge.tct", "w").write(head + body)
PY
	grep -q '^ranks \[0-16777215\]$' huge.tct
	for c in "expand --rank 5" replay "heatmap -o h.svg" "export --to chrome -o x.json"; do
		run --separate-stderr timeout 10 tracecluster $c huge.tct
		one_line_error
		[[ $stderr == "tracecluster: 'huge.tct': "*"far more "*" than the 88 events the header declares (over all 16777216 ranks)" ]]
	done
	# a world of that size whose ranks run what the header says is read
	python3 - <<'PY'
t = open("huge.tct").read()
t = t.replace("ranks [0-16777215]", "ranks [0-7]", 1).replace("events 88", "events 80", 1)
open("wide.tct", "w").write(t)
PY
	run -0 tc expand --rank 5 wide.tct
	[ "${#lines[@]}" -ge 10 ]
}

@test "tct: the tracer's time per op is refused out of order, of no op, beyond a second or of no calls" {
	# the text form: each bad line named
	tc compress -q --mode none --text "$SET" -o g.tct
	for bad in "tracer_op MPI_Wait 10 4|tracer_op MPI_Send 10 4" "tracer_op MPI_Send 10 4|tracer_op MPI_Send 10 4" \
		"tracer_op MPI_Nonsense 10 4" "tracer_op MPI_Send 1000000001 4" "tracer_op MPI_Send 10 0" \
		"tracer_op MPI_Send 10"; do
		awk -v add="$bad" '{ print } /^events / { n = split(add, a, "|"); for (i = 1; i <= n; i++) print a[i] }' \
			g.tct >bad.tct
		line=$(grep -n '^tracer_op' bad.tct | tail -1 | cut -d: -f1)
		run --separate-stderr timeout 10 tracecluster expand --rank 0 bad.tct
		one_line_error
		[[ $stderr == "tracecluster: 'bad.tct': line $line: "*"tracer_op"* ]] || { echo "$bad: $stderr"; false; }
	done
	# a good one reads, into every form and back
	awk '{ print } /^events / { print "tracer_op MPI_Send 10 4"; print "tracer_op MPI_Wait 2000 8" }' g.tct >good.tct
	run -0 tc expand --rank 0 good.tct
	run -0 tc compress -q --mode none --json "$SET" -o g.json
	python3 - <<'PY'
import json
d = json.load(open("g.json"))
d["tracer_ops"] = [{"op": "MPI_Wait", "ns": 5, "calls": 1}, {"op": "MPI_Send", "ns": 5, "calls": 1}]
json.dump(d, open("bad.json", "w"))
d["tracer_ops"] = [{"op": "MPI_Send", "ns": 5, "calls": 0}]
json.dump(d, open("bad2.json", "w"))
PY
	for f in bad.json bad2.json; do
		run --separate-stderr timeout 10 tracecluster expand --rank 0 $f
		one_line_error
		[[ $stderr == *"'$f': "*"tracer_ops"* ]] || { echo "$stderr"; false; }
	done
}
