# analysis/: what several commands do with a whole trace set, above the
# modules it combines (formats/, cluster/, align/, viz/): loading chosen
# ranks as event sequences, clustering a trace set, every rank's events
# for the figures that pick some of them, a clustered global trace built
# and measured against the original. In libtracecluster.a.
LIB_SRCS += analysis/seqload.c analysis/evsource.c analysis/analysis.c
