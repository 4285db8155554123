# cluster/: signatures and the clustering modes. Everything here goes into
# libtracecluster.a.
LIB_SRCS += cluster/signature.c
