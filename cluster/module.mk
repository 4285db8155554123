# cluster/: signatures and the clustering modes. Everything here goes into
# libtracecluster.a.
LIB_SRCS += cluster/signature.c
LIB_SRCS += cluster/cluster.c cluster/tree.c cluster/remote.c cluster/callpath.c cluster/kmodes.c \
	cluster/refine.c cluster/chameleon.c
