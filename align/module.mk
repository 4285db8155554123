# align/: pairwise and multiple alignment of process event sequences, call
# trees and the merged call graph, structural (function-pair) clustering,
# comparison of runs. The library part goes into libtracecluster.a; the
# two commands built on it are listed here too.
LIB_SRCS += align/seq.c align/pairwise.c align/msa.c align/calltree.c align/structural.c \
	align/diff.c
# the structural clustering mode, registered in cluster/cluster.c's mode table
LIB_SRCS += cluster/structural.c
CMD_SRCS += cmd/align.c cmd/diff.c
