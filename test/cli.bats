#!/usr/bin/env bats
# The command line as a whole: help, version, usage errors, man pages.

load helper

commands() {
	tc --help | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }'
}

@test "--version prints the version" {
	run -0 tc --version
	assert_output --regexp '^tracecluster [0-9]+\.[0-9]+\.[0-9]+$'
}

@test "--help lists every command and exits 0" {
	run -0 tc --help
	assert_output --partial "Commands:"
	[ "$(commands | wc -l)" -ge 3 ]
}

@test "no command is a usage error" {
	run -2 tc
}

@test "unknown command and option are usage errors" {
	run -2 --separate-stderr tc frobnicate
	assert_equal "${stderr_lines[0]}" "tracecluster: 'frobnicate' is not a command"
	run -2 tc --frobnicate
}

@test "every command answers --help on stdout and 'help CMD' says the same" {
	for c in $(commands); do
		run -0 tc "$c" --help
		[[ "$output" == usage:* ]] || { echo "$c: $output"; false; }
		a=$output
		run -0 tc help "$c"
		[ "$output" = "$a" ]
	done
}

@test "every command has a man page that lints and names each --help option" {
	command -v groff >/dev/null || skip "groff not installed"
	for c in $(commands); do
		page="$TC_ROOT/man/tracecluster-$c.1"
		[ -f "$page" ] || { echo "no man page for $c"; false; }
		run -0 groff -man -ww -z "$page"
		[ -z "$output" ] || { echo "$page: $output"; false; }
		for opt in $(tc "$c" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
			grep -q -- "$(echo "$opt" | sed 's/-/\\\\-/g')" "$page" ||
				{ echo "$page does not mention $opt"; false; }
		done
	done
	for page in "$TC_ROOT"/man/*.[1-8]; do
		run -0 groff -man -ww -z "$page"
		[ -z "$output" ] || { echo "$page: $output"; false; }
	done
}

@test "-j 0 means online CPUs; TRACECLUSTER_THREADS is a default" {
	run -0 tc -j0 --help
	TRACECLUSTER_THREADS=bogus run -2 tc --help
}

@test "write error on stdout is reported" {
	[ -w /dev/full ] || skip "no /dev/full"
	run -1 --separate-stderr bash -c 'tracecluster --help >/dev/full'
	[[ "$stderr" == *"write error"* ]]
}
