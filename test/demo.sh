#!/bin/sh
# make demo: the main job on an embedded default, and where each output went.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
tc="$top/bin/tracecluster"
out="$top/build/demo"
rm -rf "$out"
mkdir -p "$out"

echo "== 1. a synthetic 2D stencil on 16 ranks (4x4, non-periodic)"
"$tc" synth --pattern stencil2d --ranks 16 --iters 20 -o "$out/stencil2d"
echo
echo "== 2. what the trace set holds"
"$tc" info "$out/stencil2d" | sed -n '1,30p'
"$tc" info --json "$out/stencil2d" >"$out/info.json"
echo
echo "== 3. the first events of rank 5 (an interior rank)"
"$tc" dump "$out/stencil2d/rank-00005.tcr" | head -12
echo
echo "== 4. per-rank signatures (call path, parameters): 9 behaviours on a 4x4 grid"
"$tc" signatures "$out/stencil2d" | head -20
"$tc" signatures --json "$out/stencil2d" >"$out/signatures.json"
echo
echo "Outputs:"
echo "  raw traces:   $out/stencil2d/rank-*.tcr"
echo "  ground truth: $out/stencil2d/truth.json"
echo "  summary:      $out/info.json"
echo "  signatures:   $out/signatures.json"
