#!/bin/sh
# make check-apps: trace real MPI applications from Debian with the capture
# shim, 4 ranks each, and read every rank file back with tracecluster info.
#   LAMMPS  (packages lammps, lammps-examples): the 3d Lennard-Jones melt
#   HPCC    (package hpcc): the HPC Challenge suite on a small problem
# Missing packages are installed when running as root with apt-get.
# Usage: sh test/check-apps.sh BUILD_DIR
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/${1:-build/default}
shim=$build/libtracecluster-capture.so
tc=$top/bin/tracecluster
work=$top/build/check-apps
pkgs="lammps lammps-examples hpcc"

[ -f "$shim" ] || { echo "check-apps: $shim not built (no mpicc)" >&2; exit 1; }
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "check-apps: installing$missing"
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
	else
		echo "check-apps: missing packages:$missing (apt-get install$missing)" >&2
		exit 1
	fi
fi

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
command -v ssh >/dev/null || command -v rsh >/dev/null || export OMPI_MCA_plm=isolated
rm -rf "$work"
mkdir -p "$work"
cd "$work"

# traced NAME COMMAND...: run COMMAND under the shim into $work/NAME
traced() {
	name=$1
	shift
	if "$tc" run --help >/dev/null 2>&1; then
		"$tc" run --shim "$shim" -o "$work/$name" -- "$@"
	else
		LD_PRELOAD="$shim" TRACECLUSTER_DIR="$work/$name" "$@"
	fi
}

fail=0
check() {
	name=$1
	if "$tc" info "$work/$name" >"$work/$name.info"; then
		n=$(ls "$work/$name"/rank-*.tcr | wc -l)
		ev=$(awk '/^events:/ { print $2 }' "$work/$name.info")
		echo "ok - $name: $n rank files, $ev events read back"
		[ "$n" = 4 ] || { echo "not ok - $name: expected 4 rank files"; fail=1; }
	else
		echo "not ok - $name: tracecluster info failed"
		fail=1
	fi
}

traced lammps mpirun --oversubscribe -np 4 lmp -in /usr/share/lammps/examples/melt/in.melt \
	-log none -screen none
check lammps

sed -e 's/^1000 .*Ns$/400          Ns/' -e 's/^80 .*NBs$/40           NBs/' \
	/usr/share/doc/hpcc/examples/_hpccinf.txt >hpccinf.txt
traced hpcc mpirun --oversubscribe -np 4 hpcc
grep -q "End of HPC Challenge tests" hpccoutf.txt || { echo "not ok - hpcc did not finish"; fail=1; }
check hpcc
exit $fail
