#!/bin/sh
# make demo: the main job on an embedded default, and where each output went.
#
# 1. trace a bundled MPI program (a 2D halo exchange on 9 ranks) through
#    the capture shim, 2. summarise the trace set, 3. cluster the ranks,
# 4. merge the cluster leads into one global compressed trace and check
#    that it gives back a rank's events, 5. draw the communication heatmaps
#    and report the accuracy of the clustered trace, 6. cluster a synthetic
#    4x4 stencil with known ground truth, 7. replay the global trace on
#    real MPI ranks (when MPI is there) and check its communication,
# 8. cluster in the job at MPI_Finalize and over MPI processes afterwards.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
tc="$top/bin/tracecluster"
build=${TC_BUILD:-build/default}
out="$top/build/demo"
rm -rf "$out"
mkdir -p "$out"

# Open MPI refuses root and more ranks than cores unless told
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
command -v ssh >/dev/null || command -v rsh >/dev/null || export OMPI_MCA_plm=isolated

app="$top/$build/testdata/capture/halo2d"
if command -v mpirun >/dev/null && [ -x "$app" ]; then
	echo "== 1. trace an MPI program through the capture shim (9 ranks, 2D halo exchange)"
	"$tc" run -o "$out/halo2d" -- mpirun -np 9 "$app" 200 64
	set1="$out/halo2d"
	app_traced=1
else
	echo "== 1. (no mpirun: using a synthetic 2D halo exchange instead)"
	"$tc" synth --pattern stencil2d --ranks 9 --iters 200 -o "$out/halo2d"
	set1="$out/halo2d"
fi
echo
echo "== 2. what the trace set holds"
"$tc" info "$set1" | sed -n '1,20p'
"$tc" info --json "$set1" >"$out/halo2d-info.json"
echo
echo "== 3. cluster the ranks by call path, then by call path + parameters"
"$tc" cluster --mode callpath "$set1" | sed -n '1,8p'
"$tc" cluster --json "$set1" >"$out/halo2d-clusters.json"
"$tc" cluster "$set1" | sed -n '1,8p'
echo
echo "== 4. merge the cluster leads into one global compressed trace"
"$tc" compress "$set1" -o "$out/halo2d.tct"
"$tc" compress -q --text "$set1" -o "$out/halo2d.tct.txt"
"$tc" expand "$out/halo2d.tct" --rank 4 --json >"$out/rank4-expanded.jsonl"
"$tc" dump --json --rank 4 "$set1" >"$out/rank4-original.jsonl"
echo "rank 4: $(wc -l <"$out/rank4-original.jsonl") events recorded," \
	"$(wc -l <"$out/rank4-expanded.jsonl") given back by the global trace"
echo
echo "== 5. communication heatmaps and the accuracy of the clustered trace"
"$tc" heatmap --metric bytes -o "$out/halo2d-heatmap.pdf" "$set1"
"$tc" heatmap --metric bytes -o "$out/halo2d-heatmap.svg" "$set1"
"$tc" heatmap --metric bytes -o "$out/halo2d-heatmap.png" "$set1"
"$tc" heatmap --metric bytes -o "$out/halo2d-heatmap.csv" "$set1"
"$tc" heatmap --metric bytes --diff --mode callpath-param -o "$out/halo2d-heatmap-diff.pdf" "$set1"
"$tc" heatmap --histogram --collectives -o "$out/halo2d-sizes.pdf" "$set1"
"$tc" accuracy --mode callpath-param "$set1"
"$tc" accuracy --mode callpath-param --json "$set1" >"$out/halo2d-accuracy.json"
echo
echo "== 6. a synthetic 4x4 stencil (non-periodic): 9 behaviours, as its ground truth says"
"$tc" synth --pattern stencil2d --ranks 16 --iters 20 -o "$out/stencil2d"
"$tc" cluster --mode callpath "$out/stencil2d" | sed -n '1,6p'
"$tc" signatures --json "$out/stencil2d" >"$out/stencil2d-signatures.json"
replay="$top/$build/tracecluster-replay"
shim="$top/$build/libtracecluster-capture.so"
if command -v mpirun >/dev/null && [ -x "$replay" ] && [ -f "$shim" ] && [ -n "${app_traced:-}" ]; then
	echo
	echo "== 7. replay the global trace on 9 real MPI ranks, traced, and compare with the original"
	"$tc" run -q -f -o "$out/halo2d-replayed" -- mpirun -np 9 "$replay" "$out/halo2d.tct" |
		sed -n '1,4p'
	"$tc" dump --json --rank 4 "$out/halo2d-replayed" >"$out/rank4-replayed.jsonl"
	python3 "$top/test/tools/cmp-events.py" "$out/rank4-original.jsonl" \
		"$out/rank4-replayed.jsonl" | sed 's/^/rank 4 replayed against the original: /'
	"$tc" accuracy --mode callpath-param --replay mpi --replay-runs 3 "$set1" |
		sed -n "/^real replay/,\$p"
fi
tm="$top/$build/tracecluster-mpi"
if command -v mpirun >/dev/null && [ -x "$tm" ] && [ -f "$top/$build/libtracecluster-online.so" ] &&
	[ -n "${app_traced:-}" ]; then
	echo
	echo "== 8. cluster in the job (at MPI_Finalize; Chameleon at marker calls), and afterwards over 3 MPI processes"
	"$tc" run -q -f --online callpath-param -o "$out/halo2d-online" -- mpirun -np 9 "$app" 200 64 |
		sed '/^dims/d'
	echo "left by the job: $(ls "$out/halo2d-online" | grep -c '^rank-') of 9 raw files" \
		"(the leads'), global.tct of $(wc -c <"$out/halo2d-online/global.tct") bytes"
	# Chameleon while the job runs: clustering at the timestep's collective
	"$tc" run -q -f --online chameleon:4 -o "$out/halo2d-chameleon" -- mpirun -np 9 "$app" 200 64 |
		sed '/^dims/d'
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
m = d["marker"]
print("chameleon in the job: marker %s (%s, %d calls), states C %d / L %d, %d of %d events"
      " not written, raw files written %d bytes, global.tct %d bytes"
      % (m["op"], m["found"], m["calls"], d["in_state"]["C"], d["in_state"]["L"],
         d["events_not_written"], d["events"], d["raw_bytes_written"], d["bytes"]))' \
		"$out/halo2d-chameleon/online.json"
	mpirun -np 3 "$tm" compress -q "$set1" -o "$out/halo2d-mpi.tct"
	if cmp -s "$out/halo2d.tct" "$out/halo2d-mpi.tct"; then
		echo "tracecluster-mpi on 3 processes: the same global trace as step 4, byte for byte"
	else
		echo "tracecluster-mpi on 3 processes: a DIFFERENT global trace from step 4" >&2
		exit 1
	fi
fi
echo
echo "Outputs:"
echo "  traced run:       $set1/rank-*.tcr"
echo "  summary:          $out/halo2d-info.json"
echo "  clusters:         $out/halo2d-clusters.json"
echo "  global trace:     $out/halo2d.tct (binary; readable text: $out/halo2d.tct.txt)"
echo "  expanded rank 4:  $out/rank4-expanded.jsonl"
echo "  heatmaps:         $out/halo2d-heatmap.pdf .svg .png .csv, $out/halo2d-heatmap-diff.pdf"
echo "  message sizes:    $out/halo2d-sizes.pdf"
echo "  accuracy report:  $out/halo2d-accuracy.json"
echo "  synthetic set:    $out/stencil2d/ (ground truth: truth.json)"
echo "  signatures:       $out/stencil2d-signatures.json"
[ ! -d "$out/halo2d-replayed" ] ||
	echo "  replayed, traced: $out/halo2d-replayed/rank-*.tcr"
[ ! -d "$out/halo2d-online" ] ||
	echo "  in-job clustered: $out/halo2d-online/global.tct (report: online.json)"
[ ! -d "$out/halo2d-chameleon" ] ||
	echo "  chameleon in job: $out/halo2d-chameleon/global.tct (report: online.json)"
