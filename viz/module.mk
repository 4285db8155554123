# viz/: communication matrices, heatmaps (SVG, PNG, CSV) and cluster
# topology pictures; in-memory data in, bytes in a strbuf out.
LIB_SRCS += viz/matrix.c viz/heatmap.c viz/png.c viz/topology.c
