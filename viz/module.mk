# viz/: communication matrices, heatmaps, message-size histograms and
# cluster topology pictures (PDF, SVG, PNG through Cairo in figure.c; CSV);
# in-memory data in, bytes in a strbuf out.
LIB_SRCS += viz/matrix.c viz/heatmap.c viz/histogram.c viz/axis.c viz/figure.c viz/png.c \
	viz/topology.c
