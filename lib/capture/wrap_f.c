/*
 * wrap_f.c - the Fortran bindings (mpif.h, use mpi, use mpi_f08).
 *
 * Open MPI's Fortran libraries call PMPI_ directly, so C wrappers alone
 * see no Fortran call. Each function here is defined once as mpi_xxx_ and
 * exported under every name a Fortran compiler or Open MPI's mpi_f08
 * module uses: mpi_xxx_, mpi_xxx, mpi_xxx__, MPI_XXX and mpi_xxx_f08_.
 * The f08 entry points take the same arguments (TYPE(MPI_Comm) and the
 * other handle types hold one INTEGER, TYPE(MPI_Status) has the layout
 * of the INTEGER status array) except that IERROR is optional, so ierr
 * may be NULL. Handles are converted with the PMPI_*_f2c/_c2f functions;
 * MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE, MPI_UNWEIGHTED and
 * MPI_WEIGHTS_EMPTY arrive as addresses of Fortran sentinel variables and
 * are mapped to the C constants. Fortran indices are 1-based.
 *
 * Converting an array argument takes memory, which the call needs whether
 * recorded or not. Without it (recording has stopped then, tc_cap_nomem)
 * the call goes to the MPI library's own PMPI Fortran binding (pmpi_startall_
 * for mpi_startall_, found with dlsym(RTLD_NEXT): FNEXT), as it would
 * without the shim.
 */
#include "lib/compat.h"
#include "lib/capture/record.h"
#include "lib/capture/calls.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define API TC_CAP_API

typedef MPI_Fint F;

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint must be a C int");

#ifdef MPI_F_STATUS_SIZE
#define FSTATUS_SIZE MPI_F_STATUS_SIZE
#else
#define FSTATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#endif

/* Open MPI's sentinels (common blocks), under each mangling */
#define SENTINEL(x) \
	extern F x##_ __attribute__((weak)); \
	extern F x __attribute__((weak));    \
	extern F x##__ __attribute__((weak));
SENTINEL(mpi_fortran_bottom)
SENTINEL(mpi_fortran_in_place)
SENTINEL(mpi_fortran_status_ignore)
SENTINEL(mpi_fortran_statuses_ignore)
SENTINEL(mpi_fortran_unweighted)
SENTINEL(mpi_fortran_weights_empty)
SENTINEL(mpi_fortran_argv_null)
SENTINEL(mpi_fortran_errcodes_ignore)
#undef SENTINEL
/* MPICH keeps the addresses of its Fortran sentinels in these */
extern void *MPIR_F_MPI_BOTTOM __attribute__((weak));
extern void *MPIR_F_MPI_IN_PLACE __attribute__((weak));
extern void *MPI_F_MPI_UNWEIGHTED __attribute__((weak));
extern void *MPI_F_ARGV_NULL __attribute__((weak));
extern void *MPI_F_ERRCODES_IGNORE __attribute__((weak));

#define IS(p, x) ((&x##_ && (const void *)(p) == (const void *)&x##_) || \
		  (&x && (const void *)(p) == (const void *)&x) ||       \
		  (&x##__ && (const void *)(p) == (const void *)&x##__))
#define IS_MPICH(p, v) (&v && v && (const void *)(p) == v)

static inline void *fbuf(void *p)
{
	if (IS(p, mpi_fortran_bottom) || IS_MPICH(p, MPIR_F_MPI_BOTTOM))
		return MPI_BOTTOM;
	if (IS(p, mpi_fortran_in_place) || IS_MPICH(p, MPIR_F_MPI_IN_PLACE))
		return MPI_IN_PLACE;
	return p;
}

static inline bool status_ignored(const F *s)
{
	return s == MPI_F_STATUS_IGNORE || IS(s, mpi_fortran_status_ignore);
}

static inline bool statuses_ignored(const F *s)
{
	return s == MPI_F_STATUSES_IGNORE || IS(s, mpi_fortran_statuses_ignore);
}

static inline const int *fweights(const F *w)
{
	if (IS(w, mpi_fortran_unweighted) || IS_MPICH(w, MPI_F_MPI_UNWEIGHTED))
		return MPI_UNWEIGHTED;
	if (IS(w, mpi_fortran_weights_empty))
		return MPI_WEIGHTS_EMPTY;
	return w;
}

static inline void ret(F *ierr, int rc)
{
	if (ierr)
		*ierr = rc;
}

#define COMM(f) PMPI_Comm_f2c(*(f))
#define TYPE(f) PMPI_Type_f2c(*(f))
#define OP(f) PMPI_Op_f2c(*(f))
#define INFO(f) PMPI_Info_f2c(*(f))
#define GROUP(f) PMPI_Group_f2c(*(f))

/* ---- per-thread scratch for converted arrays ---------------------------- */

struct fscratch {
	MPI_Request *reqs;
	size_t reqs_alloc;
	MPI_Status *sts;
	size_t sts_alloc;
	MPI_Datatype *stypes, *rtypes;
	size_t stypes_alloc, rtypes_alloc;
	int *ints, *indices;
	size_t ints_alloc, indices_alloc;
};

static __thread struct fscratch fs __attribute__((tls_model("initial-exec")));
static pthread_key_t fs_key;
static pthread_once_t fs_once = PTHREAD_ONCE_INIT;

static void fs_free(void *p)
{
	struct fscratch *f = p;

	free(f->reqs);
	free(f->sts);
	free(f->stypes);
	free(f->rtypes);
	free(f->ints);
	free(f->indices);
	memset(f, 0, sizeof(*f));
}

static void fs_key_init(void)
{
	pthread_key_create(&fs_key, fs_free);
}

/* Arrange for this thread's arrays to be freed when it exits. */
static void fs_register(void)
{
	static __thread bool done __attribute__((tls_model("initial-exec")));

	if (TC_LIKELY(done))
		return;
	done = true;
	pthread_once(&fs_once, fs_key_init);
	pthread_setspecific(fs_key, &fs);
}

/*
 * The call of the MPI library's Fortran binding `name` with args, made
 * when the arrays cannot be converted for want of memory; where the
 * library has no such binding, MPI_ERR_NO_MEM through the error handler
 * of MPI_COMM_WORLD, as the library's own bindings do without memory.
 * Returns from the calling function.
 */
#define FNEXT(name, params, args)                                               \
	do {                                                                    \
		void(*next_) params;                                            \
		*(void **)&next_ = dlsym(RTLD_NEXT, #name);                     \
		if (next_) {                                                    \
			next_ args;                                             \
		} else {                                                        \
			PMPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_NO_MEM); \
			ret(ierr, MPI_ERR_NO_MEM);                              \
		}                                                               \
		return;                                                         \
	} while (0)

/* Returned by the helpers below when an array could not be converted. */
#define F_NOMEM (-1)

/* The C handles of f[0..n); NULL without memory. */
static MPI_Request *reqs_in(const F *f, int n)
{
	fs_register();
	if (!TC_CAP_GROW(fs.reqs, (size_t)(n > 0 ? n : 1), fs.reqs_alloc))
		return NULL;
	for (int i = 0; i < n; i++)
		fs.reqs[i] = PMPI_Request_f2c(f[i]);
	return fs.reqs;
}

static void reqs_out(F *f, const MPI_Request *c, int n)
{
	for (int i = 0; i < n; i++)
		f[i] = PMPI_Request_c2f(c[i]);
}

/* The C statuses for the Fortran ones f (n of them) in *out; false without memory. */
static bool sts_for(const F *f, int n, MPI_Status **out)
{
	*out = MPI_STATUSES_IGNORE;
	if (statuses_ignored(f))
		return true;
	fs_register();
	if (!TC_CAP_GROW(fs.sts, (size_t)(n > 0 ? n : 1), fs.sts_alloc))
		return false;
	*out = fs.sts;
	return true;
}

static void status_out(const MPI_Status *c, F *f)
{
	if (!status_ignored(f))
		PMPI_Status_c2f(c, f);
}

static MPI_Status *status_for(const F *f, MPI_Status *local)
{
	return status_ignored(f) ? MPI_STATUS_IGNORE : local;
}

/* Fortran logicals as C ints; NULL without memory. */
static const int *logicals(const F *f, int n)
{
	fs_register();
	if (!TC_CAP_GROW(fs.ints, (size_t)(n > 0 ? n : 1), fs.ints_alloc))
		return NULL;
	for (int i = 0; i < n; i++)
		fs.ints[i] = f[i] != 0;
	return fs.ints;
}

/* The C datatypes of f[0..n) in *arr; NULL without memory. */
static MPI_Datatype *types_in(MPI_Datatype **arr, size_t *alloc, const F *f, int n)
{
	fs_register();
	if (!TC_CAP_GROW(*arr, (size_t)(n > 0 ? n : 1), *alloc))
		return NULL;
	for (int i = 0; i < n; i++)
		(*arr)[i] = PMPI_Type_f2c(f[i]);
	return *arr;
}

/*
 * A Fortran string of len characters (blank padded, not terminated) as a
 * C string, without its leading and trailing blanks; NULL without memory.
 */
static char *cstring(const char *f, size_t len)
{
	size_t b = 0, e = len;
	char *s;

	while (b < e && f[b] == ' ')
		b++;
	while (e > b && (f[e - 1] == ' ' || f[e - 1] == '\0'))
		e--;
	s = tc_cap_malloc(e - b + 1);
	if (s) {
		memcpy(s, f + b, e - b);
		s[e - b] = '\0';
	}
	return s;
}

/* ---- naming ------------------------------------------------------------- */

#define FDEF(lc, UC, params)                                            \
	API void lc##_ params;                                          \
	API void lc params __attribute__((alias(#lc "_")));             \
	API void lc##__ params __attribute__((alias(#lc "_")));         \
	API void UC params __attribute__((alias(#lc "_")));             \
	API void lc##_f08_ params __attribute__((alias(#lc "_")));      \
	API void lc##_ params

/* ---- environment -------------------------------------------------------- */

FDEF(mpi_init, MPI_INIT, (F *ierr))
{
	ret(ierr, tcw_init(NULL, NULL, TC_RA()));
}

FDEF(mpi_init_thread, MPI_INIT_THREAD, (F *required, F *provided, F *ierr))
{
	int prov = MPI_THREAD_SINGLE;
	int rc = tcw_init_thread(NULL, NULL, *required, &prov, TC_RA());

	*provided = prov;
	ret(ierr, rc);
}

FDEF(mpi_finalize, MPI_FINALIZE, (F *ierr))
{
	ret(ierr, tcw_finalize(TC_RA()));
}

FDEF(mpi_abort, MPI_ABORT, (F *comm, F *code, F *ierr))
{
	ret(ierr, tcw_abort(COMM(comm), *code));
}

FDEF(mpi_pcontrol, MPI_PCONTROL, (F *level))
{
	tcw_pcontrol(*level, TC_RA());
}

/* ---- point to point ----------------------------------------------------- */

#define X(name, OP, lc)                                                                 \
	FDEF(mpi_##lc, MPI_##OP, (void *buf, F *count, F *dt, F *dest, F *tag, F *comm, \
				  F *ierr))                                             \
	{                                                                               \
		ret(ierr, tcw_send(TC_OP_##OP, fbuf(buf), *count, TYPE(dt), *dest, *tag,\
				   COMM(comm), TC_RA()));                               \
	}
TC_CALLS_SEND(X)
#undef X

#define X(name, OP, lc)                                                                 \
	FDEF(mpi_##lc, MPI_##OP, (void *buf, F *count, F *dt, F *peer, F *tag, F *comm, \
				  F *req, F *ierr))                                     \
	{                                                                               \
		MPI_Request c = MPI_REQUEST_NULL;                                       \
		int rc = tcw_isend(TC_OP_##OP, fbuf(buf), *count, TYPE(dt), *peer, *tag,\
				   COMM(comm), &c, TC_RA());                            \
		if (rc == MPI_SUCCESS)                                                  \
			*req = PMPI_Request_c2f(c);                                     \
		ret(ierr, rc);                                                          \
	}
TC_CALLS_ISEND(X)
TC_CALLS_IRECV(X)
#undef X

FDEF(mpi_recv, MPI_RECV, (void *buf, F *count, F *dt, F *src, F *tag, F *comm, F *status,
			  F *ierr))
{
	MPI_Status cs;
	int rc = tcw_recv(fbuf(buf), *count, TYPE(dt), *src, *tag, COMM(comm),
			  status_for(status, &cs), TC_RA());

	if (rc == MPI_SUCCESS)
		status_out(&cs, status);
	ret(ierr, rc);
}

FDEF(mpi_sendrecv, MPI_SENDRECV, (void *sbuf, F *scount, F *stype, F *dest, F *stag,
				  void *rbuf, F *rcount, F *rtype, F *src, F *rtag, F *comm,
				  F *status, F *ierr))
{
	MPI_Status cs;
	int rc = tcw_sendrecv(fbuf(sbuf), *scount, TYPE(stype), *dest, *stag, fbuf(rbuf),
			      *rcount, TYPE(rtype), *src, *rtag, COMM(comm),
			      status_for(status, &cs), false, TC_RA());

	if (rc == MPI_SUCCESS)
		status_out(&cs, status);
	ret(ierr, rc);
}

FDEF(mpi_sendrecv_replace, MPI_SENDRECV_REPLACE, (void *buf, F *count, F *dt, F *dest, F *stag,
						  F *src, F *rtag, F *comm, F *status,
						  F *ierr))
{
	MPI_Status cs;
	int rc = tcw_sendrecv_replace(fbuf(buf), *count, TYPE(dt), *dest, *stag, *src, *rtag,
				      COMM(comm), status_for(status, &cs), false, TC_RA());

	if (rc == MPI_SUCCESS)
		status_out(&cs, status);
	ret(ierr, rc);
}

FDEF(mpi_probe, MPI_PROBE, (F *src, F *tag, F *comm, F *status, F *ierr))
{
	MPI_Status cs;
	int rc = tcw_probe(*src, *tag, COMM(comm), NULL, status_for(status, &cs), TC_RA());

	if (rc == MPI_SUCCESS)
		status_out(&cs, status);
	ret(ierr, rc);
}

FDEF(mpi_iprobe, MPI_IPROBE, (F *src, F *tag, F *comm, F *flag, F *status, F *ierr))
{
	MPI_Status cs;
	int cflag = 0;
	int rc = tcw_probe(*src, *tag, COMM(comm), &cflag, status_for(status, &cs), TC_RA());

	*flag = cflag != 0;
	if (rc == MPI_SUCCESS && cflag)
		status_out(&cs, status);
	ret(ierr, rc);
}

FDEF(mpi_mprobe, MPI_MPROBE, (F *src, F *tag, F *comm, F *msg, F *status, F *ierr))
{
	MPI_Status cs;
	MPI_Message m;
	int rc = tcw_mprobe(*src, *tag, COMM(comm), NULL, &m, status_for(status, &cs), TC_RA());

	if (rc == MPI_SUCCESS) {
		*msg = PMPI_Message_c2f(m);
		status_out(&cs, status);
	}
	ret(ierr, rc);
}

FDEF(mpi_improbe, MPI_IMPROBE, (F *src, F *tag, F *comm, F *flag, F *msg, F *status, F *ierr))
{
	MPI_Status cs;
	MPI_Message m;
	int cflag = 0;
	int rc = tcw_mprobe(*src, *tag, COMM(comm), &cflag, &m, status_for(status, &cs),
			    TC_RA());

	*flag = cflag != 0;
	if (rc == MPI_SUCCESS && cflag) {
		*msg = PMPI_Message_c2f(m);
		status_out(&cs, status);
	}
	ret(ierr, rc);
}

FDEF(mpi_mrecv, MPI_MRECV, (void *buf, F *count, F *dt, F *msg, F *status, F *ierr))
{
	MPI_Status cs;
	MPI_Message m = PMPI_Message_f2c(*msg);
	int rc = tcw_mrecv(fbuf(buf), *count, TYPE(dt), &m, status_for(status, &cs), NULL,
			   false, TC_RA());

	if (rc == MPI_SUCCESS) {
		*msg = PMPI_Message_c2f(m);
		status_out(&cs, status);
	}
	ret(ierr, rc);
}

FDEF(mpi_imrecv, MPI_IMRECV, (void *buf, F *count, F *dt, F *msg, F *req, F *ierr))
{
	MPI_Message m = PMPI_Message_f2c(*msg);
	MPI_Request c;
	int rc = tcw_mrecv(fbuf(buf), *count, TYPE(dt), &m, MPI_STATUS_IGNORE, &c, false,
			   TC_RA());

	if (rc == MPI_SUCCESS) {
		*msg = PMPI_Message_c2f(m);
		*req = PMPI_Request_c2f(c);
	}
	ret(ierr, rc);
}

FDEF(mpi_start, MPI_START, (F *req, F *ierr))
{
	MPI_Request c = PMPI_Request_f2c(*req);
	int rc = tcw_start(&c, TC_RA());

	*req = PMPI_Request_c2f(c);
	ret(ierr, rc);
}

FDEF(mpi_startall, MPI_STARTALL, (F *count, F *reqs, F *ierr))
{
	MPI_Request *c = reqs_in(reqs, *count);
	int rc;

	if (!c)
		FNEXT(pmpi_startall_, (F *, F *, F *), (count, reqs, ierr));
	rc = tcw_startall(*count, c, TC_RA());
	reqs_out(reqs, c, *count);
	ret(ierr, rc);
}

FDEF(mpi_request_free, MPI_REQUEST_FREE, (F *req, F *ierr))
{
	MPI_Request c = PMPI_Request_f2c(*req);
	int rc = tcw_request_free(&c, TC_RA());

	if (rc == MPI_SUCCESS)
		*req = PMPI_Request_c2f(MPI_REQUEST_NULL);
	ret(ierr, rc);
}

FDEF(mpi_cancel, MPI_CANCEL, (F *req, F *ierr))
{
	MPI_Request c = PMPI_Request_f2c(*req);

	ret(ierr, tcw_cancel(&c, TC_RA()));
}

/* ---- completion --------------------------------------------------------- */

FDEF(mpi_wait, MPI_WAIT, (F *req, F *status, F *ierr))
{
	MPI_Status cs;
	MPI_Request c = PMPI_Request_f2c(*req);
	int rc = tcw_wait(&c, NULL, status_for(status, &cs), TC_RA());

	if (rc == MPI_SUCCESS) {
		*req = PMPI_Request_c2f(c);
		status_out(&cs, status);
	}
	ret(ierr, rc);
}

FDEF(mpi_test, MPI_TEST, (F *req, F *flag, F *status, F *ierr))
{
	MPI_Status cs;
	MPI_Request c = PMPI_Request_f2c(*req);
	int cflag = 0;
	int rc = tcw_wait(&c, &cflag, status_for(status, &cs), TC_RA());

	if (rc == MPI_SUCCESS) {
		*flag = cflag != 0;
		if (cflag) {
			*req = PMPI_Request_c2f(c);
			status_out(&cs, status);
		}
	}
	ret(ierr, rc);
}

static void statuses_out(const MPI_Status *c, F *f, int n)
{
	if (c == MPI_STATUSES_IGNORE)
		return;
	for (int i = 0; i < n; i++)
		PMPI_Status_c2f(&c[i], &f[i * FSTATUS_SIZE]);
}

FDEF(mpi_waitall, MPI_WAITALL, (F *count, F *reqs, F *statuses, F *ierr))
{
	int n = *count, rc;
	MPI_Request *c = reqs_in(reqs, n);
	MPI_Status *st;

	if (!c || !sts_for(statuses, n, &st))
		FNEXT(pmpi_waitall_, (F *, F *, F *, F *), (count, reqs, statuses, ierr));
	rc = tcw_waitall(n, c, NULL, st, TC_RA());

	if (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) {
		reqs_out(reqs, c, n);
		statuses_out(st, statuses, n);
	}
	ret(ierr, rc);
}

FDEF(mpi_testall, MPI_TESTALL, (F *count, F *reqs, F *flag, F *statuses, F *ierr))
{
	int n = *count, cflag = 0, rc;
	MPI_Request *c = reqs_in(reqs, n);
	MPI_Status *st;

	if (!c || !sts_for(statuses, n, &st))
		FNEXT(pmpi_testall_, (F *, F *, F *, F *, F *),
		      (count, reqs, flag, statuses, ierr));
	rc = tcw_waitall(n, c, &cflag, st, TC_RA());

	if (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) {
		*flag = cflag != 0;
		if (cflag) {
			reqs_out(reqs, c, n);
			statuses_out(st, statuses, n);
		}
	}
	ret(ierr, rc);
}

static void index_out(F *findex, int cindex, MPI_Request *c, F *reqs)
{
	if (cindex == MPI_UNDEFINED) {
		*findex = MPI_UNDEFINED;
		return;
	}
	reqs[cindex] = PMPI_Request_c2f(c[cindex]);
	*findex = cindex + 1;
}

FDEF(mpi_waitany, MPI_WAITANY, (F *count, F *reqs, F *index, F *status, F *ierr))
{
	MPI_Status cs;
	int n = *count, cindex = MPI_UNDEFINED, rc;
	MPI_Request *c = reqs_in(reqs, n);

	if (!c)
		FNEXT(pmpi_waitany_, (F *, F *, F *, F *, F *), (count, reqs, index, status, ierr));
	rc = tcw_waitany(n, c, &cindex, NULL, status_for(status, &cs), TC_RA());

	if (rc == MPI_SUCCESS) {
		index_out(index, cindex, c, reqs);
		if (cindex != MPI_UNDEFINED)
			status_out(&cs, status);
	}
	ret(ierr, rc);
}

FDEF(mpi_testany, MPI_TESTANY, (F *count, F *reqs, F *index, F *flag, F *status, F *ierr))
{
	MPI_Status cs;
	int n = *count, cindex = MPI_UNDEFINED, cflag = 0, rc;
	MPI_Request *c = reqs_in(reqs, n);

	if (!c)
		FNEXT(pmpi_testany_, (F *, F *, F *, F *, F *, F *),
		      (count, reqs, index, flag, status, ierr));
	rc = tcw_waitany(n, c, &cindex, &cflag, status_for(status, &cs), TC_RA());

	if (rc == MPI_SUCCESS) {
		*flag = cflag != 0;
		index_out(index, cindex, c, reqs);
		if (cflag && cindex != MPI_UNDEFINED)
			status_out(&cs, status);
	}
	ret(ierr, rc);
}

/* Waitsome and Testsome; false without memory (the call not made). */
static bool waitsome(unsigned op, F *incount, F *reqs, F *outcount, F *indices, F *statuses,
		     F *ierr, void *ra)
{
	int n = *incount, out = 0;
	MPI_Request *c = reqs_in(reqs, n);
	MPI_Status *st;
	int rc;

	fs_register();
	if (!c || !sts_for(statuses, n, &st) ||
	    !TC_CAP_GROW(fs.indices, (size_t)(n > 0 ? n : 1), fs.indices_alloc))
		return false;
	rc = tcw_waitsome(op, n, c, &out, fs.indices, st, ra);
	if (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) {
		*outcount = out;
		if (out != MPI_UNDEFINED) {
			for (int k = 0; k < out; k++) {
				int i = fs.indices[k];
				reqs[i] = PMPI_Request_c2f(c[i]);
				indices[k] = i + 1;
				if (st != MPI_STATUSES_IGNORE)
					PMPI_Status_c2f(&st[k], &statuses[k * FSTATUS_SIZE]);
			}
		}
	}
	ret(ierr, rc);
	return true;
}

FDEF(mpi_waitsome, MPI_WAITSOME, (F *incount, F *reqs, F *outcount, F *indices, F *statuses,
				  F *ierr))
{
	if (!waitsome(TC_OP_WAITSOME, incount, reqs, outcount, indices, statuses, ierr, TC_RA()))
		FNEXT(pmpi_waitsome_, (F *, F *, F *, F *, F *, F *),
		      (incount, reqs, outcount, indices, statuses, ierr));
}

FDEF(mpi_testsome, MPI_TESTSOME, (F *incount, F *reqs, F *outcount, F *indices, F *statuses,
				  F *ierr))
{
	if (!waitsome(TC_OP_TESTSOME, incount, reqs, outcount, indices, statuses, ierr, TC_RA()))
		FNEXT(pmpi_testsome_, (F *, F *, F *, F *, F *, F *),
		      (incount, reqs, outcount, indices, statuses, ierr));
}

/* ---- collectives -------------------------------------------------------- */

/* Nonblocking forms: convert the request out. */
#define REQ_OUT(rc, c, req)                              \
	do {                                             \
		if ((rc) == MPI_SUCCESS)                 \
			*(req) = PMPI_Request_c2f(c);    \
	} while (0)

FDEF(mpi_barrier, MPI_BARRIER, (F *comm, F *ierr))
{
	ret(ierr, tcw_barrier(COMM(comm), NULL, NULL, TC_RA()));
}

FDEF(mpi_ibarrier, MPI_IBARRIER, (F *comm, F *req, F *ierr))
{
	MPI_Request c;
	int rc = tcw_barrier(COMM(comm), &c, NULL, TC_RA());

	REQ_OUT(rc, c, req);
	ret(ierr, rc);
}

FDEF(mpi_bcast, MPI_BCAST, (void *buf, F *count, F *dt, F *root, F *comm, F *ierr))
{
	ret(ierr, tcw_bcast(fbuf(buf), *count, TYPE(dt), *root, COMM(comm), NULL, NULL, TC_RA()));
}

FDEF(mpi_ibcast, MPI_IBCAST, (void *buf, F *count, F *dt, F *root, F *comm, F *req, F *ierr))
{
	MPI_Request c;
	int rc = tcw_bcast(fbuf(buf), *count, TYPE(dt), *root, COMM(comm), &c, NULL, TC_RA());

	REQ_OUT(rc, c, req);
	ret(ierr, rc);
}

#define X(name, iname, UC, lc)                                                                \
	FDEF(mpi_##lc, MPI_##UC, (void *sbuf, void *rbuf, F *count, F *dt, F *rop, F *root,     \
				  F *comm, F *ierr))                                            \
	{                                                                                       \
		ret(ierr, tcw_reduce(TC_OP_##UC, fbuf(sbuf), fbuf(rbuf), *count, TYPE(dt),      \
				     OP(rop), *root, COMM(comm), NULL, NULL, TC_RA()));               \
	}                                                                                       \
	FDEF(mpi_i##lc, MPI_I##UC, (void *sbuf, void *rbuf, F *count, F *dt, F *rop, F *root,   \
				    F *comm, F *req, F *ierr))                                  \
	{                                                                                       \
		MPI_Request c;                                                                  \
		int rc = tcw_reduce(TC_OP_I##UC, fbuf(sbuf), fbuf(rbuf), *count, TYPE(dt),      \
				    OP(rop), *root, COMM(comm), &c, NULL, TC_RA());                   \
		REQ_OUT(rc, c, req);                                                            \
		ret(ierr, rc);                                                                  \
	}
TC_CALLS_REDUCE_ROOT(X)
#undef X

#define X(name, iname, UC, lc)                                                                \
	FDEF(mpi_##lc, MPI_##UC, (void *sbuf, void *rbuf, F *count, F *dt, F *rop, F *comm,     \
				  F *ierr))                                                     \
	{                                                                                       \
		ret(ierr, tcw_reduce(TC_OP_##UC, fbuf(sbuf), fbuf(rbuf), *count, TYPE(dt),      \
				     OP(rop), 0, COMM(comm), NULL, NULL, TC_RA()));                   \
	}                                                                                       \
	FDEF(mpi_i##lc, MPI_I##UC, (void *sbuf, void *rbuf, F *count, F *dt, F *rop, F *comm,   \
				    F *req, F *ierr))                                           \
	{                                                                                       \
		MPI_Request c;                                                                  \
		int rc = tcw_reduce(TC_OP_I##UC, fbuf(sbuf), fbuf(rbuf), *count, TYPE(dt),      \
				    OP(rop), 0, COMM(comm), &c, NULL, TC_RA());                       \
		REQ_OUT(rc, c, req);                                                            \
		ret(ierr, rc);                                                                  \
	}
TC_CALLS_REDUCE(X)
#undef X


#define X(name, iname, OP, lc)                                                                \
	FDEF(mpi_##lc, MPI_##OP, (void *sbuf, F *scount, F *stype, void *rbuf, F *rcount,       \
				  F *rtype, F *root, F *comm, F *ierr))                         \
	{                                                                                       \
		ret(ierr, tcw_gather(TC_OP_##OP, fbuf(sbuf), *scount, TYPE(stype), fbuf(rbuf),  \
				     *rcount, TYPE(rtype), *root, COMM(comm), NULL, NULL, TC_RA()));  \
	}                                                                                       \
	FDEF(mpi_i##lc, MPI_I##OP, (void *sbuf, F *scount, F *stype, void *rbuf, F *rcount,     \
				    F *rtype, F *root, F *comm, F *req, F *ierr))               \
	{                                                                                       \
		MPI_Request c;                                                                  \
		int rc = tcw_gather(TC_OP_I##OP, fbuf(sbuf), *scount, TYPE(stype), fbuf(rbuf),  \
				    *rcount, TYPE(rtype), *root, COMM(comm), &c, NULL, TC_RA());      \
		REQ_OUT(rc, c, req);                                                            \
		ret(ierr, rc);                                                                  \
	}
TC_CALLS_GATHER_ROOT(X)
#undef X

static inline int gather0(unsigned op, const void *sbuf, int scount, MPI_Datatype stype,
			  void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm,
			  MPI_Request *req, const MPI_Info *init, void *ra)
{
	return tcw_gather(op, sbuf, scount, stype, rbuf, rcount, rtype, 0, comm, req, init, ra);
}

/* rooted at 0 for tcw_gather: the allgathers; tcw_neighbor: the neighbourhood ones */
#define X(name, iname, OP, lc, fn)                                                            \
	FDEF(mpi_##lc, MPI_##OP, (void *sbuf, F *scount, F *stype, void *rbuf, F *rcount,       \
				  F *rtype, F *comm, F *ierr))                                  \
	{                                                                                       \
		ret(ierr, fn(TC_OP_##OP, fbuf(sbuf), *scount, TYPE(stype), fbuf(rbuf),          \
			     *rcount, TYPE(rtype), COMM(comm), NULL, NULL, TC_RA()));           \
	}                                                                                       \
	FDEF(mpi_i##lc, MPI_I##OP, (void *sbuf, F *scount, F *stype, void *rbuf, F *rcount,     \
				    F *rtype, F *comm, F *req, F *ierr))                        \
	{                                                                                       \
		MPI_Request c;                                                                  \
		int rc = fn(TC_OP_I##OP, fbuf(sbuf), *scount, TYPE(stype), fbuf(rbuf),          \
			    *rcount, TYPE(rtype), COMM(comm), &c, NULL, TC_RA());               \
		REQ_OUT(rc, c, req);                                                            \
		ret(ierr, rc);                                                                  \
	}
#define ALLGATHER(name, iname, OP, lc) X(name, iname, OP, lc, gather0)
#define NEIGHBOR(name, iname, OP, lc) X(name, iname, OP, lc, tcw_neighbor)
TC_CALLS_ALLGATHER(ALLGATHER)
TC_CALLS_NEIGHBOR(NEIGHBOR)
#undef ALLGATHER
#undef NEIGHBOR
#undef X

/*
 * The v- and w-collectives, from their tables (calls.h): FCOLL_FORMS makes
 * the blocking and I- forms, FCOLL_INIT (MPI-4) the persistent one, of a
 * binding whose parameters before the communicator are params, passing
 * args before it to the recording function fn.
 */
#define FCOLL_FORMS(lc, OP, fn, params, args)                                                 \
	FDEF(mpi_##lc, MPI_##OP, (TC_UNPAREN params, F *comm, F *ierr))                         \
	{                                                                                       \
		ret(ierr, fn(TC_OP_##OP, TC_UNPAREN args, COMM(comm), NULL, NULL, false,        \
			     TC_RA()));                                                         \
	}                                                                                       \
	FDEF(mpi_i##lc, MPI_I##OP, (TC_UNPAREN params, F *comm, F *req, F *ierr))               \
	{                                                                                       \
		MPI_Request c;                                                                  \
		int rc = fn(TC_OP_I##OP, TC_UNPAREN args, COMM(comm), &c, NULL, false, TC_RA()); \
		REQ_OUT(rc, c, req);                                                            \
		ret(ierr, rc);                                                                  \
	}
#define FCOLL_INIT(lc, OP, fn, params, args)                                                  \
	FDEF(mpi_##lc##_init, MPI_##OP##_INIT, (TC_UNPAREN params, F *comm, F *info, F *req,    \
						F *ierr))                                       \
	{                                                                                       \
		MPI_Info i = INFO(info);                                                        \
		MPI_Request c;                                                                  \
		int rc = fn(TC_OP_##OP##_INIT, TC_UNPAREN args, COMM(comm), &c, &i, false,      \
			    TC_RA());                                                           \
		REQ_OUT(rc, c, req);                                                            \
		ret(ierr, rc);                                                                  \
	}

#define REDUCE_SCATTER(FORMS, lc, UC, fn)                                                    \
	FORMS(lc, UC, fn, (void *sbuf, void *rbuf, F *rcounts, F *dt, F *rop),                  \
	      (fbuf(sbuf), fbuf(rbuf), TC_VI(rcounts), TYPE(dt), OP(rop)))
#define X(name, iname, OP, lc, fn) REDUCE_SCATTER(FCOLL_FORMS, lc, OP, fn)
TC_CALLS_REDUCE_SCATTER(X)
#undef X

#define GATHERV(FORMS, lc, OP, fn, rt)                                                        \
	FORMS(lc, OP, fn,                                                                       \
	      (void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs,              \
	       F *rtype rt(, F *root)),                                                         \
	      (fbuf(sbuf), *scount, TYPE(stype), fbuf(rbuf), TC_VI(rcounts), TC_VI(displs),     \
	       TYPE(rtype) rt(, *root)))
#define X(name, iname, OP, lc, fn, rt) GATHERV(FCOLL_FORMS, lc, OP, fn, rt)
TC_CALLS_GATHERV(X)
#undef X

#define SCATTERV(FORMS, lc, OP, fn)                                                           \
	FORMS(lc, OP, fn,                                                                       \
	      (void *sbuf, F *scounts, F *displs, F *stype, void *rbuf, F *rcount, F *rtype,    \
	       F *root),                                                                        \
	      (fbuf(sbuf), TC_VI(scounts), TC_VI(displs), TYPE(stype), fbuf(rbuf), *rcount,     \
	       TYPE(rtype), *root))
#define X(name, iname, OP, lc, fn) SCATTERV(FCOLL_FORMS, lc, OP, fn)
TC_CALLS_SCATTERV(X)
#undef X

#define ALLTOALLV(FORMS, lc, OP, fn)                                                          \
	FORMS(lc, OP, fn,                                                                       \
	      (void *sbuf, F *scounts, F *sdispls, F *stype, void *rbuf, F *rcounts,            \
	       F *rdispls, F *rtype),                                                           \
	      (fbuf(sbuf), TC_VI(scounts), TC_VI(sdispls), TYPE(stype), fbuf(rbuf),             \
	       TC_VI(rcounts), TC_VI(rdispls), TYPE(rtype)))
#define X(name, iname, OP, lc, fn) ALLTOALLV(FCOLL_FORMS, lc, OP, fn)
TC_CALLS_ALLTOALLV(X)
#undef X

/* Number of entries of the per-peer arrays of comm. */
static int peers_of(MPI_Comm comm)
{
	int inter = 0, n = 0;

	PMPI_Comm_test_inter(comm, &inter);
	if (inter)
		PMPI_Comm_remote_size(comm, &n);
	else
		PMPI_Comm_size(comm, &n);
	return n;
}

/* Out- and in-degree of comm's topology: the lengths of the type arrays. */
static void degrees_of(MPI_Comm comm, int *in, int *out)
{
	int topo = MPI_UNDEFINED, nd = 0, me = 0, weighted = 0;

	*in = *out = 0;
	PMPI_Topo_test(comm, &topo);
	if (topo == MPI_CART) {
		PMPI_Cartdim_get(comm, &nd);
		*in = *out = 2 * nd;
	} else if (topo == MPI_GRAPH) {
		PMPI_Comm_rank(comm, &me);
		PMPI_Graph_neighbors_count(comm, me, in);
		*out = *in;
	} else if (topo == MPI_DIST_GRAPH) {
		PMPI_Dist_graph_neighbors_count(comm, in, out, &weighted);
	}
}

/*
 * Alltoallw, Neighbor_alltoallw and their I- and _init forms (op), recorded
 * by fn once their type arrays are converted, as many as the peers, or as
 * the in- and out-neighbours; F_NOMEM without memory (the call not made).
 */
static int alltoallw(unsigned op,
		     int (*fn)(unsigned, const void *, union tc_vec, union tc_vec,
			       const MPI_Datatype *, void *, union tc_vec, union tc_vec,
			       const MPI_Datatype *, MPI_Comm, MPI_Request *, const MPI_Info *,
			       bool, void *),
		     void *sbuf, F *scounts, union tc_vec sdispls, F *stypes, void *rbuf,
		     F *rcounts, union tc_vec rdispls, F *rtypes, F *comm, MPI_Request *req,
		     const MPI_Info *init, void *ra)
{
	MPI_Comm c = COMM(comm);
	void *s = fbuf(sbuf);
	MPI_Datatype *st = NULL, *rt;
	int in, out;

	if (fn == tcw_neighbor_alltoallw)
		degrees_of(c, &in, &out);
	else
		in = out = peers_of(c);
	if (s != MPI_IN_PLACE && !(st = types_in(&fs.stypes, &fs.stypes_alloc, stypes, out)))
		return F_NOMEM;
	if (!(rt = types_in(&fs.rtypes, &fs.rtypes_alloc, rtypes, in)))
		return F_NOMEM;
	return fn(op, s, TC_VI(scounts), sdispls, st, fbuf(rbuf), TC_VI(rcounts), rdispls, rt, c,
		  req, init, false, ra);
}

/*
 * Their bindings, whose displacements are DT, member dm of union tc_vec;
 * without memory for the types the MPI library's own binding does the call.
 */
#define WPARAMS(DT, ...) (void *, F *, DT *, F *, void *, F *, DT *, F *, F *, __VA_ARGS__)
#define WARGS(DT, dm)                                                                         \
	sbuf, scounts, TC_VEC(dm, sdispls), stypes, rbuf, rcounts, TC_VEC(dm, rdispls), rtypes, \
		comm
#define ALLTOALLW_FORMS(name, iname, OP, lc, fn, DT, dm)                                      \
	FDEF(mpi_##lc, MPI_##OP, (void *sbuf, F *scounts, DT *sdispls, F *stypes, void *rbuf,   \
				  F *rcounts, DT *rdispls, F *rtypes, F *comm, F *ierr))        \
	{                                                                                       \
		int rc = alltoallw(TC_OP_##OP, fn, WARGS(DT, dm), NULL, NULL, TC_RA());         \
		if (rc == F_NOMEM)                                                              \
			FNEXT(pmpi_##lc##_, WPARAMS(DT, F *),                                   \
			      (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes,  \
			       comm, ierr));                                                    \
		ret(ierr, rc);                                                                  \
	}                                                                                       \
	FDEF(mpi_i##lc, MPI_I##OP, (void *sbuf, F *scounts, DT *sdispls, F *stypes, void *rbuf, \
				    F *rcounts, DT *rdispls, F *rtypes, F *comm, F *req,        \
				    F *ierr))                                                   \
	{                                                                                       \
		MPI_Request c;                                                                  \
		int rc = alltoallw(TC_OP_I##OP, fn, WARGS(DT, dm), &c, NULL, TC_RA());          \
		if (rc == F_NOMEM)                                                              \
			FNEXT(pmpi_i##lc##_, WPARAMS(DT, F *, F *),                             \
			      (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes,  \
			       comm, req, ierr));                                               \
		REQ_OUT(rc, c, req);                                                            \
		ret(ierr, rc);                                                                  \
	}
TC_CALLS_ALLTOALLW(ALLTOALLW_FORMS)

/* ---- neighbourhood collectives ------------------------------------------ */
#define NEWCOMM_OUT(rc, c, f)                            \
	do {                                             \
		if ((rc) == MPI_SUCCESS)                 \
			*(f) = PMPI_Comm_c2f(c);         \
	} while (0)

FDEF(mpi_comm_dup, MPI_COMM_DUP, (F *comm, F *newcomm, F *ierr))
{
	MPI_Comm c;
	int rc = tcw_comm_dup(COMM(comm), NULL, &c, NULL, TC_RA());

	NEWCOMM_OUT(rc, c, newcomm);
	ret(ierr, rc);
}

FDEF(mpi_comm_idup, MPI_COMM_IDUP, (F *comm, F *newcomm, F *req, F *ierr))
{
	MPI_Comm c;
	MPI_Request r;
	int rc = tcw_comm_dup(COMM(comm), NULL, &c, &r, TC_RA());

	NEWCOMM_OUT(rc, c, newcomm);
	REQ_OUT(rc, r, req);
	ret(ierr, rc);
}

FDEF(mpi_comm_split, MPI_COMM_SPLIT, (F *comm, F *color, F *key, F *newcomm, F *ierr))
{
	MPI_Comm c;
	int rc = tcw_comm_split(COMM(comm), *color, *key, &c, TC_RA());

	NEWCOMM_OUT(rc, c, newcomm);
	ret(ierr, rc);
}

FDEF(mpi_comm_split_type, MPI_COMM_SPLIT_TYPE, (F *comm, F *type, F *key, F *info, F *newcomm,
						F *ierr))
{
	MPI_Comm c;
	int rc = tcw_comm_split_type(COMM(comm), *type, *key, INFO(info), &c, TC_RA());

	NEWCOMM_OUT(rc, c, newcomm);
	ret(ierr, rc);
}

FDEF(mpi_comm_create, MPI_COMM_CREATE, (F *comm, F *group, F *newcomm, F *ierr))
{
	MPI_Comm c;
	int rc = tcw_comm_create(COMM(comm), GROUP(group), &c, TC_RA());

	NEWCOMM_OUT(rc, c, newcomm);
	ret(ierr, rc);
}

FDEF(mpi_comm_create_group, MPI_COMM_CREATE_GROUP, (F *comm, F *group, F *tag, F *newcomm,
						    F *ierr))
{
	MPI_Comm c;
	int rc = tcw_comm_create_group(COMM(comm), GROUP(group), *tag, &c, TC_RA());

	NEWCOMM_OUT(rc, c, newcomm);
	ret(ierr, rc);
}

FDEF(mpi_comm_free, MPI_COMM_FREE, (F *comm, F *ierr))
{
	MPI_Comm c = COMM(comm);
	int rc = tcw_comm_free(&c, TC_RA());

	NEWCOMM_OUT(rc, c, comm);
	ret(ierr, rc);
}

FDEF(mpi_comm_disconnect, MPI_COMM_DISCONNECT, (F *comm, F *ierr))
{
	MPI_Comm c = COMM(comm);
	int rc = tcw_comm_disconnect(&c, TC_RA());

	NEWCOMM_OUT(rc, c, comm);
	ret(ierr, rc);
}

/*
 * The C argument vector of the Fortran one f (strings of len characters,
 * ended by a blank one) in *out: MPI_ARGV_NULL for Fortran's; false
 * without memory. Free *out with free_argv.
 */
static bool argv_in(const char *f, size_t len, char ***out)
{
	size_t n = 0;
	char **v;

	*out = MPI_ARGV_NULL;
	if (IS(f, mpi_fortran_argv_null) || IS_MPICH(f, MPI_F_ARGV_NULL))
		return true;
	for (;;) {
		size_t i = 0;

		while (i < len && (f[n * len + i] == ' ' || f[n * len + i] == '\0'))
			i++;
		if (i == len)
			break;
		n++;
	}
	v = tc_cap_malloc((n + 1) * sizeof(*v));
	if (!v)
		return false;
	for (size_t k = 0; k < n; k++) {
		v[k] = cstring(f + k * len, len);
		if (!v[k]) {
			while (k--)
				free(v[k]);
			free(v);
			return false;
		}
	}
	v[n] = NULL;
	*out = v;
	return true;
}

static void free_argv(char **v)
{
	if (v == MPI_ARGV_NULL)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

FDEF(mpi_comm_spawn, MPI_COMM_SPAWN,
     (char *command, char *argv, F *maxprocs, F *info, F *root, F *comm, F *intercomm,
      F *errcodes, F *ierr, size_t cmd_len, size_t arg_len))
{
	char *ccmd = cstring(command, cmd_len);
	char **cargv = MPI_ARGV_NULL;
	int *cerr = errcodes;
	MPI_Comm c;
	int rc;

	if (!ccmd || !argv_in(argv, arg_len, &cargv)) {
		free(ccmd);
		FNEXT(pmpi_comm_spawn_,
		      (char *, char *, F *, F *, F *, F *, F *, F *, F *, size_t, size_t),
		      (command, argv, maxprocs, info, root, comm, intercomm, errcodes, ierr,
		       cmd_len, arg_len));
	}
	if (IS(errcodes, mpi_fortran_errcodes_ignore) || IS_MPICH(errcodes, MPI_F_ERRCODES_IGNORE))
		cerr = MPI_ERRCODES_IGNORE;
	rc = tcw_comm_spawn(ccmd, cargv, *maxprocs, INFO(info), *root, COMM(comm), &c, cerr,
			    TC_RA());
	free(ccmd);
	free_argv(cargv);
	NEWCOMM_OUT(rc, c, intercomm);
	ret(ierr, rc);
}

/* Comm_connect (accept false) and Comm_accept */
static void fconnect(bool accept, char *port, F *info, F *root, F *comm, F *newcomm, F *ierr,
		     size_t len, void *ra)
{
	char *cport = cstring(port, len);
	MPI_Comm c;
	int rc;

	if (!cport) {
		if (accept)
			FNEXT(pmpi_comm_accept_, (char *, F *, F *, F *, F *, F *, size_t),
			      (port, info, root, comm, newcomm, ierr, len));
		FNEXT(pmpi_comm_connect_, (char *, F *, F *, F *, F *, F *, size_t),
		      (port, info, root, comm, newcomm, ierr, len));
	}
	rc = tcw_comm_connect(accept, cport, INFO(info), *root, COMM(comm), &c, ra);
	free(cport);
	NEWCOMM_OUT(rc, c, newcomm);
	ret(ierr, rc);
}

FDEF(mpi_comm_connect, MPI_COMM_CONNECT,
     (char *port, F *info, F *root, F *comm, F *newcomm, F *ierr, size_t len))
{
	fconnect(false, port, info, root, comm, newcomm, ierr, len, TC_RA());
}

FDEF(mpi_comm_accept, MPI_COMM_ACCEPT,
     (char *port, F *info, F *root, F *comm, F *newcomm, F *ierr, size_t len))
{
	fconnect(true, port, info, root, comm, newcomm, ierr, len, TC_RA());
}

FDEF(mpi_cart_create, MPI_CART_CREATE, (F *comm, F *ndims, F *dims, F *periods, F *reorder,
					F *newcomm, F *ierr))
{
	MPI_Comm c;
	const int *p = logicals(periods, *ndims);
	int rc;

	if (!p)
		FNEXT(pmpi_cart_create_, (F *, F *, F *, F *, F *, F *, F *),
		      (comm, ndims, dims, periods, reorder, newcomm, ierr));
	rc = tcw_cart_create(COMM(comm), *ndims, dims, p, *reorder != 0, &c, TC_RA());

	NEWCOMM_OUT(rc, c, newcomm);
	ret(ierr, rc);
}

FDEF(mpi_cart_sub, MPI_CART_SUB, (F *comm, F *remain, F *newcomm, F *ierr))
{
	MPI_Comm c = COMM(comm), nc;
	const int *p;
	int nd = 0, rc;

	PMPI_Cartdim_get(c, &nd);
	p = logicals(remain, nd);
	if (!p)
		FNEXT(pmpi_cart_sub_, (F *, F *, F *, F *), (comm, remain, newcomm, ierr));
	rc = tcw_cart_sub(c, p, &nc, TC_RA());
	NEWCOMM_OUT(rc, nc, newcomm);
	ret(ierr, rc);
}

FDEF(mpi_graph_create, MPI_GRAPH_CREATE, (F *comm, F *nnodes, F *index, F *edges, F *reorder,
					  F *newcomm, F *ierr))
{
	MPI_Comm c;
	int rc = tcw_graph_create(COMM(comm), *nnodes, index, edges, *reorder != 0, &c, TC_RA());

	NEWCOMM_OUT(rc, c, newcomm);
	ret(ierr, rc);
}

FDEF(mpi_dist_graph_create_adjacent, MPI_DIST_GRAPH_CREATE_ADJACENT,
     (F *comm, F *indeg, F *srcs, F *sw, F *outdeg, F *dsts, F *dw, F *info, F *reorder,
      F *newcomm, F *ierr))
{
	MPI_Comm c;
	int rc = tcw_dist_graph_create_adjacent(COMM(comm), *indeg, srcs, fweights(sw), *outdeg,
						dsts, fweights(dw), INFO(info), *reorder != 0,
						&c, TC_RA());

	NEWCOMM_OUT(rc, c, newcomm);
	ret(ierr, rc);
}

FDEF(mpi_comm_dup_with_info, MPI_COMM_DUP_WITH_INFO, (F *comm, F *info, F *newcomm, F *ierr))
{
	MPI_Comm c;
	MPI_Info ci = INFO(info);
	int rc = tcw_comm_dup(COMM(comm), &ci, &c, NULL, TC_RA());

	NEWCOMM_OUT(rc, c, newcomm);
	ret(ierr, rc);
}

FDEF(mpi_intercomm_create, MPI_INTERCOMM_CREATE,
     (F *local, F *local_leader, F *peer_comm, F *remote_leader, F *tag, F *newcomm, F *ierr))
{
	MPI_Comm c;
	int rc = tcw_intercomm_create(COMM(local), *local_leader, COMM(peer_comm), *remote_leader,
				      *tag, &c, TC_RA());

	NEWCOMM_OUT(rc, c, newcomm);
	ret(ierr, rc);
}

FDEF(mpi_intercomm_merge, MPI_INTERCOMM_MERGE, (F *intercomm, F *high, F *newcomm, F *ierr))
{
	MPI_Comm c;
	int rc = tcw_intercomm_merge(COMM(intercomm), *high != 0, &c, TC_RA());

	NEWCOMM_OUT(rc, c, newcomm);
	ret(ierr, rc);
}

FDEF(mpi_dist_graph_create, MPI_DIST_GRAPH_CREATE,
     (F *comm, F *n, F *srcs, F *degrees, F *dsts, F *weights, F *info, F *reorder,
      F *newcomm, F *ierr))
{
	MPI_Comm c;
	int rc = tcw_dist_graph_create(COMM(comm), *n, srcs, degrees, dsts, fweights(weights),
				       INFO(info), *reorder != 0, &c, TC_RA());

	NEWCOMM_OUT(rc, c, newcomm);
	ret(ierr, rc);
}

/* ---- one-sided ---------------------------------------------------------- */

#define WIN(f) PMPI_Win_f2c(*(f))

FDEF(mpi_win_create, MPI_WIN_CREATE, (void *base, MPI_Aint *size, F *disp_unit, F *info,
				      F *comm, F *win, F *ierr))
{
	MPI_Win w;
	int rc = tcw_win_create(TC_OP_WIN_CREATE, fbuf(base), *size, *disp_unit, INFO(info),
				COMM(comm), &w, false, TC_RA());

	if (rc == MPI_SUCCESS)
		*win = PMPI_Win_c2f(w);
	ret(ierr, rc);
}

/* baseptr: where the address of the memory goes, as in C */
#define FWIN_ALLOCATE(lc, UC, op)                                                          \
	FDEF(lc, UC, (MPI_Aint *size, F *disp_unit, F *info, F *comm, void *baseptr, F *win, \
		      F *ierr))                                                            \
	{                                                                                  \
		MPI_Win w;                                                                 \
		int rc = tcw_win_create(op, baseptr, *size, *disp_unit, INFO(info),        \
					COMM(comm), &w, false, TC_RA());                   \
		if (rc == MPI_SUCCESS)                                                     \
			*win = PMPI_Win_c2f(w);                                            \
		ret(ierr, rc);                                                             \
	}
FWIN_ALLOCATE(mpi_win_allocate, MPI_WIN_ALLOCATE, TC_OP_WIN_ALLOCATE)
FWIN_ALLOCATE(mpi_win_allocate_shared, MPI_WIN_ALLOCATE_SHARED, TC_OP_WIN_ALLOCATE_SHARED)
#undef FWIN_ALLOCATE

FDEF(mpi_win_create_dynamic, MPI_WIN_CREATE_DYNAMIC, (F *info, F *comm, F *win, F *ierr))
{
	MPI_Win w;
	int rc = tcw_win_create(TC_OP_WIN_CREATE_DYNAMIC, NULL, 0, 1, INFO(info), COMM(comm), &w,
				false, TC_RA());

	if (rc == MPI_SUCCESS)
		*win = PMPI_Win_c2f(w);
	ret(ierr, rc);
}

FDEF(mpi_win_free, MPI_WIN_FREE, (F *win, F *ierr))
{
	MPI_Win w = WIN(win);
	int rc = tcw_win_free(&w, TC_RA());

	if (rc == MPI_SUCCESS)
		*win = PMPI_Win_c2f(w);
	ret(ierr, rc);
}

#define X(name, rname, OP, lc, cq)                                                            \
	FDEF(mpi_##lc, MPI_##OP, (void *addr, F *ocount, F *otype, F *target, MPI_Aint *disp,   \
				  F *tcount, F *ttype, F *win, F *ierr))                        \
	{                                                                                       \
		ret(ierr, tcw_put(TC_OP_##OP, fbuf(addr), *ocount, TYPE(otype), *target,        \
				  *disp, *tcount, TYPE(ttype), WIN(win), NULL, TC_RA()));       \
	}                                                                                       \
	FDEF(mpi_r##lc, MPI_R##OP, (void *addr, F *ocount, F *otype, F *target,                 \
				    MPI_Aint *disp, F *tcount, F *ttype, F *win, F *req,        \
				    F *ierr))                                                   \
	{                                                                                       \
		MPI_Request c;                                                                  \
		int rc = tcw_put(TC_OP_R##OP, fbuf(addr), *ocount, TYPE(otype), *target, *disp, \
				 *tcount, TYPE(ttype), WIN(win), &c, TC_RA());                  \
		REQ_OUT(rc, c, req);                                                            \
		ret(ierr, rc);                                                                  \
	}
TC_CALLS_PUT(X)
#undef X

/*
 * The accumulates, from their tables (calls.h): FRMA_FORMS makes a call
 * and its request form, whose parameters before the window are params,
 * passing args before it to fn.
 */
#define FRMA_FORMS(lc, UC, fn, params, args)                                                  \
	FDEF(mpi_##lc, MPI_##UC, (TC_UNPAREN params, F *win, F *ierr))                          \
	{                                                                                       \
		ret(ierr, fn(TC_OP_##UC, TC_UNPAREN args, WIN(win), NULL, false, TC_RA()));     \
	}                                                                                       \
	FDEF(mpi_r##lc, MPI_R##UC, (TC_UNPAREN params, F *win, F *req, F *ierr))                \
	{                                                                                       \
		MPI_Request c;                                                                  \
		int rc = fn(TC_OP_R##UC, TC_UNPAREN args, WIN(win), &c, false, TC_RA());        \
		REQ_OUT(rc, c, req);                                                            \
		ret(ierr, rc);                                                                  \
	}
#define X(name, rname, UC, lc)                                                                \
	FRMA_FORMS(lc, UC, tcw_accumulate,                                                      \
		   (void *addr, F *ocount, F *otype, F *target, MPI_Aint *disp, F *tcount,      \
		    F *ttype, F *rop),                                                          \
		   (fbuf(addr), *ocount, TYPE(otype), *target, *disp, *tcount, TYPE(ttype),     \
		    OP(rop)))
TC_CALLS_ACCUMULATE(X)
#undef X
#define X(name, rname, UC, lc)                                                                \
	FRMA_FORMS(lc, UC, tcw_get_accumulate,                                                  \
		   (void *oaddr, F *ocount, F *otype, void *raddr, F *rcount, F *rtype,         \
		    F *target, MPI_Aint *disp, F *tcount, F *ttype, F *rop),                    \
		   (fbuf(oaddr), *ocount, TYPE(otype), fbuf(raddr), *rcount, TYPE(rtype),       \
		    *target, *disp, *tcount, TYPE(ttype), OP(rop)))
TC_CALLS_GET_ACCUMULATE(X)
#undef X

FDEF(mpi_fetch_and_op, MPI_FETCH_AND_OP, (void *oaddr, void *raddr, F *dt, F *target,
					  MPI_Aint *disp, F *op, F *win, F *ierr))
{
	ret(ierr, tcw_fetch_and_op(fbuf(oaddr), fbuf(raddr), TYPE(dt), *target, *disp, OP(op),
				   WIN(win), TC_RA()));
}

FDEF(mpi_compare_and_swap, MPI_COMPARE_AND_SWAP, (void *oaddr, void *caddr, void *raddr, F *dt,
						  F *target, MPI_Aint *disp, F *win, F *ierr))
{
	ret(ierr, tcw_compare_and_swap(fbuf(oaddr), fbuf(caddr), fbuf(raddr), TYPE(dt), *target,
				       *disp, WIN(win), TC_RA()));
}

#define FWSYNC(op, type, rank, assert, group, win, flag) \
	tcw_win_sync(op, type, rank, assert, group, win, flag, TC_RA())

FDEF(mpi_win_lock, MPI_WIN_LOCK, (F *type, F *rank, F *assert, F *win, F *ierr))
{
	ret(ierr, FWSYNC(TC_OP_WIN_LOCK, *type, *rank, *assert, MPI_GROUP_NULL, WIN(win), NULL));
}

#define X(name, OP, lc)                                                                    \
	FDEF(mpi_##lc, MPI_##OP, (F *win, F *ierr))                                          \
	{                                                                                    \
		ret(ierr, FWSYNC(TC_OP_##OP, 0, 0, 0, MPI_GROUP_NULL, WIN(win), NULL));      \
	}
TC_CALLS_WIN(X)
#undef X

#define X(name, OP, lc)                                                                    \
	FDEF(mpi_##lc, MPI_##OP, (F *rank, F *win, F *ierr))                                 \
	{                                                                                    \
		ret(ierr, FWSYNC(TC_OP_##OP, 0, *rank, 0, MPI_GROUP_NULL, WIN(win), NULL));  \
	}
TC_CALLS_WIN_RANK(X)
#undef X

#define X(name, OP, lc)                                                                    \
	FDEF(mpi_##lc, MPI_##OP, (F *assert, F *win, F *ierr))                               \
	{                                                                                    \
		ret(ierr, FWSYNC(TC_OP_##OP, 0, 0, *assert, MPI_GROUP_NULL, WIN(win), NULL));\
	}
TC_CALLS_WIN_ASSERT(X)
#undef X

#define X(name, OP, lc)                                                                    \
	FDEF(mpi_##lc, MPI_##OP, (F *group, F *assert, F *win, F *ierr))                     \
	{                                                                                    \
		ret(ierr, FWSYNC(TC_OP_##OP, 0, 0, *assert, GROUP(group), WIN(win), NULL));  \
	}
TC_CALLS_WIN_GROUP(X)
#undef X

FDEF(mpi_win_test, MPI_WIN_TEST, (F *win, F *flag, F *ierr))
{
	int cflag = 0;
	int rc = FWSYNC(TC_OP_WIN_TEST, 0, 0, 0, MPI_GROUP_NULL, WIN(win), &cflag);

	*flag = cflag != 0;
	ret(ierr, rc);
}
#undef FWSYNC

/* ---- MPI-IO ------------------------------------------------------------- */

FDEF(mpi_file_open, MPI_FILE_OPEN, (F *comm, char *name, F *amode, F *info, F *fh, F *ierr,
				    size_t len))
{
	char *cname = cstring(name, len);
	MPI_File c;
	int rc;

	if (!cname)
		FNEXT(pmpi_file_open_, (F *, char *, F *, F *, F *, F *, size_t),
		      (comm, name, amode, info, fh, ierr, len));
	rc = tcw_file_open(COMM(comm), cname, *amode, INFO(info), &c, TC_RA());
	free(cname);
	if (rc == MPI_SUCCESS)
		*fh = PMPI_File_c2f(c);
	ret(ierr, rc);
}

FDEF(mpi_file_close, MPI_FILE_CLOSE, (F *fh, F *ierr))
{
	MPI_File c = PMPI_File_f2c(*fh);
	int rc = tcw_file_close(&c, TC_RA());

	if (rc == MPI_SUCCESS)
		*fh = PMPI_File_c2f(c);
	ret(ierr, rc);
}

/* the explicit-offset forms take an MPI_Offset after fh: AT, or nothing */
#define AT , MPI_Offset *off
#define NOAT
#define X(name, OP, lc, cq, at, off)                                                          \
	FDEF(mpi_##lc, MPI_##OP, (F *fh at, void *buf, F *count, F *dt, F *status, F *ierr))   \
	{                                                                                       \
		MPI_Status cs;                                                                  \
		int rc = tcw_file_rw(TC_OP_##OP, PMPI_File_f2c(*fh), off, fbuf(buf), *count,    \
				     TYPE(dt), status_for(status, &cs), false, TC_RA());        \
		if (rc == MPI_SUCCESS)                                                          \
			status_out(&cs, status);                                                \
		ret(ierr, rc);                                                                  \
	}
#define FILE_RW(name, OP, lc, cq) X(name, OP, lc, cq, NOAT, 0)
#define FILE_RW_AT(name, OP, lc, cq) X(name, OP, lc, cq, AT, *off)
TC_CALLS_FILE(FILE_RW)
TC_CALLS_FILE_AT(FILE_RW_AT)
#undef FILE_RW
#undef FILE_RW_AT
#undef X

#define X(name, OP, lc, cq, at, off)                                                          \
	FDEF(mpi_##lc, MPI_##OP, (F *fh at, void *buf, F *count, F *dt, F *req, F *ierr))      \
	{                                                                                       \
		MPI_Request c;                                                                  \
		int rc = tcw_file_irw(TC_OP_##OP, PMPI_File_f2c(*fh), off, fbuf(buf), *count,   \
				      TYPE(dt), &c, false, TC_RA());                            \
		REQ_OUT(rc, c, req);                                                            \
		ret(ierr, rc);                                                                  \
	}
#define FILE_IRW(name, OP, lc, cq) X(name, OP, lc, cq, NOAT, 0)
#define FILE_IRW_AT(name, OP, lc, cq) X(name, OP, lc, cq, AT, *off)
TC_CALLS_FILE_I(FILE_IRW)
TC_CALLS_FILE_I_AT(FILE_IRW_AT)
#undef FILE_IRW
#undef FILE_IRW_AT
#undef X
#undef AT
#undef NOAT

/* ---- MPI-4: nonblocking sendrecv, persistent collectives, partitioned ---- */

#if MPI_VERSION >= 4
FDEF(mpi_isendrecv, MPI_ISENDRECV, (void *sbuf, F *scount, F *stype, F *dest, F *stag,
				    void *rbuf, F *rcount, F *rtype, F *src, F *rtag, F *comm,
				    F *req, F *ierr))
{
	MPI_Request c;
	int rc = tcw_isendrecv(TC_OP_ISENDRECV, fbuf(sbuf), *scount, TYPE(stype), *dest, *stag,
			       fbuf(rbuf), *rcount, TYPE(rtype), *src, *rtag, COMM(comm), &c,
			       false, TC_RA());

	REQ_OUT(rc, c, req);
	ret(ierr, rc);
}

FDEF(mpi_isendrecv_replace, MPI_ISENDRECV_REPLACE, (void *buf, F *count, F *dt, F *dest,
						    F *stag, F *src, F *rtag, F *comm, F *req,
						    F *ierr))
{
	MPI_Request c;
	int rc = tcw_isendrecv(TC_OP_ISENDRECV_REPLACE, fbuf(buf), *count, TYPE(dt), *dest, *stag,
			       fbuf(buf), *count, TYPE(dt), *src, *rtag, COMM(comm), &c, false,
			       TC_RA());

	REQ_OUT(rc, c, req);
	ret(ierr, rc);
}

/* the persistent collectives: their info after the communicator */
FDEF(mpi_barrier_init, MPI_BARRIER_INIT, (F *comm, F *info, F *req, F *ierr))
{
	MPI_Info i = INFO(info);
	MPI_Request c;
	int rc = tcw_barrier(COMM(comm), &c, &i, TC_RA());

	REQ_OUT(rc, c, req);
	ret(ierr, rc);
}

FDEF(mpi_bcast_init, MPI_BCAST_INIT, (void *buf, F *count, F *dt, F *root, F *comm, F *info,
				      F *req, F *ierr))
{
	MPI_Info i = INFO(info);
	MPI_Request c;
	int rc = tcw_bcast(fbuf(buf), *count, TYPE(dt), *root, COMM(comm), &c, &i, TC_RA());

	REQ_OUT(rc, c, req);
	ret(ierr, rc);
}

#define X(name, iname, UC, lc)                                                                \
	FDEF(mpi_##lc##_init, MPI_##UC##_INIT, (void *sbuf, void *rbuf, F *count, F *dt,        \
						F *rop, F *root, F *comm, F *info, F *req,      \
						F *ierr))                                       \
	{                                                                                       \
		MPI_Info i = INFO(info);                                                        \
		MPI_Request c;                                                                  \
		int rc = tcw_reduce(TC_OP_##UC##_INIT, fbuf(sbuf), fbuf(rbuf), *count,          \
				    TYPE(dt), OP(rop), *root, COMM(comm), &c, &i, TC_RA());     \
		REQ_OUT(rc, c, req);                                                            \
		ret(ierr, rc);                                                                  \
	}
TC_CALLS_REDUCE_ROOT(X)
#undef X

#define X(name, iname, UC, lc)                                                                \
	FDEF(mpi_##lc##_init, MPI_##UC##_INIT, (void *sbuf, void *rbuf, F *count, F *dt,        \
						F *rop, F *comm, F *info, F *req, F *ierr))     \
	{                                                                                       \
		MPI_Info i = INFO(info);                                                        \
		MPI_Request c;                                                                  \
		int rc = tcw_reduce(TC_OP_##UC##_INIT, fbuf(sbuf), fbuf(rbuf), *count,          \
				    TYPE(dt), OP(rop), 0, COMM(comm), &c, &i, TC_RA());         \
		REQ_OUT(rc, c, req);                                                            \
		ret(ierr, rc);                                                                  \
	}
TC_CALLS_REDUCE(X)
#undef X

#define X(name, iname, OP, lc)                                                                \
	FDEF(mpi_##lc##_init, MPI_##OP##_INIT, (void *sbuf, F *scount, F *stype, void *rbuf,    \
						F *rcount, F *rtype, F *root, F *comm,          \
						F *info, F *req, F *ierr))                      \
	{                                                                                       \
		MPI_Info i = INFO(info);                                                        \
		MPI_Request c;                                                                  \
		int rc = tcw_gather(TC_OP_##OP##_INIT, fbuf(sbuf), *scount, TYPE(stype),        \
				    fbuf(rbuf), *rcount, TYPE(rtype), *root, COMM(comm), &c,    \
				    &i, TC_RA());                                               \
		REQ_OUT(rc, c, req);                                                            \
		ret(ierr, rc);                                                                  \
	}
TC_CALLS_GATHER_ROOT(X)
#undef X

#define X(name, iname, OP, lc, fn)                                                            \
	FDEF(mpi_##lc##_init, MPI_##OP##_INIT, (void *sbuf, F *scount, F *stype, void *rbuf,    \
						F *rcount, F *rtype, F *comm, F *info, F *req,  \
						F *ierr))                                       \
	{                                                                                       \
		MPI_Info i = INFO(info);                                                        \
		MPI_Request c;                                                                  \
		int rc = fn(TC_OP_##OP##_INIT, fbuf(sbuf), *scount, TYPE(stype), fbuf(rbuf),    \
			    *rcount, TYPE(rtype), COMM(comm), &c, &i, TC_RA());                 \
		REQ_OUT(rc, c, req);                                                            \
		ret(ierr, rc);                                                                  \
	}
#define ALLGATHER(name, iname, OP, lc) X(name, iname, OP, lc, gather0)
#define NEIGHBOR(name, iname, OP, lc) X(name, iname, OP, lc, tcw_neighbor)
TC_CALLS_ALLGATHER(ALLGATHER)
TC_CALLS_NEIGHBOR(NEIGHBOR)
#undef ALLGATHER
#undef NEIGHBOR
#undef X

/* the persistent v- and w-collectives, from their tables */
#define X(name, iname, OP, lc, fn, rt) GATHERV(FCOLL_INIT, lc, OP, fn, rt)
TC_CALLS_GATHERV(X)
#undef X
#define X(name, iname, OP, lc, fn) SCATTERV(FCOLL_INIT, lc, OP, fn)
TC_CALLS_SCATTERV(X)
#undef X
#define X(name, iname, OP, lc, fn) ALLTOALLV(FCOLL_INIT, lc, OP, fn)
TC_CALLS_ALLTOALLV(X)
#undef X
#define X(name, iname, OP, lc, fn) REDUCE_SCATTER(FCOLL_INIT, lc, OP, fn)
TC_CALLS_REDUCE_SCATTER(X)
#undef X
#define ALLTOALLW_INIT(name, iname, UC, lc, fn, DT, dm)                                        \
	FDEF(mpi_##lc##_init, MPI_##UC##_INIT,                                                  \
	     (void *sbuf, F *scounts, DT *sdispls, F *stypes, void *rbuf, F *rcounts,           \
	      DT *rdispls, F *rtypes, F *comm, F *info, F *req, F *ierr))                       \
	{                                                                                       \
		MPI_Info i = INFO(info);                                                        \
		MPI_Request c;                                                                  \
		int rc = alltoallw(TC_OP_##UC##_INIT, fn, WARGS(DT, dm), &c, &i, TC_RA());      \
		if (rc == F_NOMEM)                                                              \
			FNEXT(pmpi_##lc##_init_, WPARAMS(DT, F *, F *, F *),                    \
			      (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes,  \
			       comm, info, req, ierr));                                         \
		REQ_OUT(rc, c, req);                                                            \
		ret(ierr, rc);                                                                  \
	}
TC_CALLS_ALLTOALLW(ALLTOALLW_INIT)
#undef ALLTOALLW_INIT

FDEF(mpi_session_init, MPI_SESSION_INIT, (F *info, F *eh, F *session, F *ierr))
{
	MPI_Session c;
	int rc = tcw_session(TC_OP_SESSION_INIT, INFO(info), PMPI_Errhandler_f2c(*eh), &c,
			     TC_RA());

	if (rc == MPI_SUCCESS)
		*session = PMPI_Session_c2f(c);
	ret(ierr, rc);
}

FDEF(mpi_session_finalize, MPI_SESSION_FINALIZE, (F *session, F *ierr))
{
	MPI_Session c = PMPI_Session_f2c(*session);
	int rc = tcw_session(TC_OP_SESSION_FINALIZE, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c,
			     TC_RA());

	if (rc == MPI_SUCCESS)
		*session = PMPI_Session_c2f(c);
	ret(ierr, rc);
}

/* the MPI-4 communicator constructors */
FDEF(mpi_comm_idup_with_info, MPI_COMM_IDUP_WITH_INFO, (F *comm, F *info, F *newcomm, F *req,
							F *ierr))
{
	MPI_Comm c;
	MPI_Info ci = INFO(info);
	MPI_Request r;
	int rc = tcw_comm_dup(COMM(comm), &ci, &c, &r, TC_RA());

	NEWCOMM_OUT(rc, c, newcomm);
	REQ_OUT(rc, r, req);
	ret(ierr, rc);
}

FDEF(mpi_comm_create_from_group, MPI_COMM_CREATE_FROM_GROUP,
     (F *group, char *tag, F *info, F *eh, F *newcomm, F *ierr, size_t len))
{
	char *ctag = cstring(tag, len);
	MPI_Comm c;
	int rc;

	if (!ctag)
		FNEXT(pmpi_comm_create_from_group_, (F *, char *, F *, F *, F *, F *, size_t),
		      (group, tag, info, eh, newcomm, ierr, len));
	rc = tcw_comm_create_from_group(GROUP(group), ctag, INFO(info), PMPI_Errhandler_f2c(*eh),
					&c, TC_RA());
	free(ctag);
	NEWCOMM_OUT(rc, c, newcomm);
	ret(ierr, rc);
}

FDEF(mpi_intercomm_create_from_groups, MPI_INTERCOMM_CREATE_FROM_GROUPS,
     (F *local, F *local_leader, F *remote, F *remote_leader, char *tag, F *info, F *eh,
      F *newcomm, F *ierr, size_t len))
{
	char *ctag = cstring(tag, len);
	MPI_Comm c;
	int rc;

	if (!ctag)
		FNEXT(pmpi_intercomm_create_from_groups_,
		      (F *, F *, F *, F *, char *, F *, F *, F *, F *, size_t),
		      (local, local_leader, remote, remote_leader, tag, info, eh, newcomm, ierr,
		       len));
	rc = tcw_intercomm_create_from_groups(GROUP(local), *local_leader, GROUP(remote),
					      *remote_leader, ctag, INFO(info),
					      PMPI_Errhandler_f2c(*eh), &c, TC_RA());
	free(ctag);
	NEWCOMM_OUT(rc, c, newcomm);
	ret(ierr, rc);
}

/* partitioned communication: the count is INTEGER(KIND=MPI_COUNT_KIND) */
#define X(lc, UC)                                                                             \
	FDEF(mpi_##lc, MPI_##UC, (void *buf, F *partitions, MPI_Count *count, F *dt, F *peer,   \
				  F *tag, F *comm, F *info, F *req, F *ierr))                   \
	{                                                                                       \
		MPI_Request c;                                                                  \
		int rc = tcw_pinit(TC_OP_##UC, fbuf(buf), *partitions, *count, TYPE(dt), *peer, \
				   *tag, COMM(comm), INFO(info), &c, TC_RA());                  \
		REQ_OUT(rc, c, req);                                                            \
		ret(ierr, rc);                                                                  \
	}
X(psend_init, PSEND_INIT)
X(precv_init, PRECV_INIT)
#undef X

FDEF(mpi_pready, MPI_PREADY, (F *partition, F *req, F *ierr))
{
	ret(ierr, tcw_pready(TC_OP_PREADY, *partition, *partition, 0, NULL,
			     PMPI_Request_f2c(*req), NULL, TC_RA()));
}

FDEF(mpi_pready_range, MPI_PREADY_RANGE, (F *lo, F *hi, F *req, F *ierr))
{
	ret(ierr, tcw_pready(TC_OP_PREADY_RANGE, *lo, *hi, 0, NULL, PMPI_Request_f2c(*req), NULL,
			     TC_RA()));
}

FDEF(mpi_pready_list, MPI_PREADY_LIST, (F *n, F *partitions, F *req, F *ierr))
{
	ret(ierr, tcw_pready(TC_OP_PREADY_LIST, 0, 0, *n, partitions, PMPI_Request_f2c(*req),
			     NULL, TC_RA()));
}

FDEF(mpi_parrived, MPI_PARRIVED, (F *req, F *partition, F *flag, F *ierr))
{
	int cflag = 0;
	int rc = tcw_pready(TC_OP_PARRIVED, *partition, *partition, 0, NULL,
			    PMPI_Request_f2c(*req), &cflag, TC_RA());

	if (rc == MPI_SUCCESS)
		*flag = cflag != 0;
	ret(ierr, rc);
}
#endif
