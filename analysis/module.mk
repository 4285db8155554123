# analysis/: what several commands do with a whole trace set, above the
# modules it combines (formats/, cluster/, align/, viz/): loading chosen
# ranks as event sequences, clustering a trace set, every rank's events
# for the figures that pick some of them. In libtracecluster.a.
LIB_SRCS += analysis/seqload.c analysis/evsource.c
