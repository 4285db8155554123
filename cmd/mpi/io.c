/*
 * io.c - MPI-IO re-executed on scratch files.
 *
 * World rank 0 makes a directory of its own under TMPDIR (else /tmp) when
 * any rank's trace has MPI-IO; each MPI_File_open opens a new file there
 * (named by the communicator's rank 0, so that every rank of it opens the
 * same one), created, read-write and deleted on close; the accesses read
 * and write zeros with the recorded counts and types at the recorded
 * offsets (the individual file pointer is placed where it was, the shared
 * one is left to the calls). The default file view is kept: an offset is
 * taken as bytes. The directory is removed at the end.
 */
#include "lib/compat.h"
#include "cmd/mpi/internal.h"
#include "lib/event.h"
#include "lib/xalloc.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IO_PATH 4096

int tc_rp_io_init(struct tc_replay_mpi *s)
{
	char path[IO_PATH] = "";
	const char *tmp = getenv("TMPDIR");
	int has = 0, any = 0;

	for (size_t i = 0; i < s->evs->n && !has; i++)
		has = tc_op_kind(s->evs->ev[i].op) == TC_K_IO;
	PMPI_Allreduce(&has, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
	if (!any)
		return 0;
	if (s->rank == 0) {
		snprintf(path, sizeof(path), "%s/tracecluster-replay-XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(path)) {
			fprintf(stderr, "tracecluster-replay: cannot create a directory in '%s' for "
				"MPI-IO: %m\n", tmp && *tmp ? tmp : "/tmp");
			path[0] = '\0';
		}
	}
	PMPI_Bcast(path, sizeof(path), MPI_CHAR, 0, MPI_COMM_WORLD);
	if (!path[0])
		return -1;
	s->io_dir = tc_xstrdup(path);
	return 0;
}

static struct tc_rfile *file_find(struct tc_replay_mpi *s, uint32_t id)
{
	for (size_t i = s->nfiles; i-- > 0;)
		if (s->files[i].valid && s->files[i].id == id)
			return &s->files[i];
	return NULL;
}

static bool file_open(struct tc_replay_mpi *s, const struct tc_event *ev)
{
	struct tc_rcomm *c = tc_rp_comm_get(s, ev);
	struct tc_rfile *f = NULL;
	char name[IO_PATH + 64];
	unsigned who[2] = { (unsigned)s->rank, s->io_seq };

	if (!c || c->inter || !s->io_dir || !(ev->fields & TC_F_FILE))
		return false;
	/* the name of comm's rank 0, with its count of files opened */
	PMPI_Bcast(who, 2, MPI_UNSIGNED, 0, c->c);
	if (who[0] == (unsigned)s->rank)
		s->io_seq++;
	snprintf(name, sizeof(name), "%s/file-%u-%u", s->io_dir, who[0], who[1]);
	for (size_t i = 0; i < s->nfiles && !f; i++)
		if (!s->files[i].valid)
			f = &s->files[i];
	if (!f) {
		s->files = tc_xrealloc(s->files, tc_st_mult(s->nfiles + 1, sizeof(*s->files)));
		f = &s->files[s->nfiles++];
	}
	f->id = ev->file;
	f->f = MPI_FILE_NULL;
	f->valid = MPI_File_open(c->c, name, MPI_MODE_CREATE | MPI_MODE_RDWR |
				 MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &f->f) == MPI_SUCCESS;
	return f->valid;
}

/* Whether op accesses at the individual file pointer. */
static bool at_pointer(unsigned op)
{
	switch (op) {
	case TC_OP_FILE_READ:
	case TC_OP_FILE_READ_ALL:
	case TC_OP_FILE_WRITE:
	case TC_OP_FILE_WRITE_ALL:
	case TC_OP_FILE_IREAD:
	case TC_OP_FILE_IREAD_ALL:
	case TC_OP_FILE_IWRITE:
	case TC_OP_FILE_IWRITE_ALL:
		return true;
	default:
		return false;
	}
}

static bool file_rw(struct tc_replay_mpi *s, const struct tc_event *ev, MPI_File fh)
{
	MPI_Request h = MPI_REQUEST_NULL;
	MPI_Datatype t;
	MPI_Offset off = (MPI_Offset)ev->offset;
	bool exact;
	int cnt = (int)ev->count;
	void *w = s->sbuf, *r = s->rbuf;
	MPI_Status *st = MPI_STATUS_IGNORE;

	if (!tc_rp_fits_int(ev->count) || ev->offset > INT64_MAX)
		return false;
	t = tc_rp_dtype(ev, &exact);
	if (at_pointer(ev->op))
		PMPI_File_seek(fh, off, MPI_SEEK_SET);
	switch (ev->op) {
	case TC_OP_FILE_READ: MPI_File_read(fh, r, cnt, t, st); break;
	case TC_OP_FILE_READ_AT: MPI_File_read_at(fh, off, r, cnt, t, st); break;
	case TC_OP_FILE_READ_ALL: MPI_File_read_all(fh, r, cnt, t, st); break;
	case TC_OP_FILE_READ_AT_ALL: MPI_File_read_at_all(fh, off, r, cnt, t, st); break;
	case TC_OP_FILE_WRITE: MPI_File_write(fh, w, cnt, t, st); break;
	case TC_OP_FILE_WRITE_AT: MPI_File_write_at(fh, off, w, cnt, t, st); break;
	case TC_OP_FILE_WRITE_ALL: MPI_File_write_all(fh, w, cnt, t, st); break;
	case TC_OP_FILE_WRITE_AT_ALL: MPI_File_write_at_all(fh, off, w, cnt, t, st); break;
	case TC_OP_FILE_READ_SHARED: MPI_File_read_shared(fh, r, cnt, t, st); break;
	case TC_OP_FILE_WRITE_SHARED: MPI_File_write_shared(fh, w, cnt, t, st); break;
	case TC_OP_FILE_READ_ORDERED: MPI_File_read_ordered(fh, r, cnt, t, st); break;
	case TC_OP_FILE_WRITE_ORDERED: MPI_File_write_ordered(fh, w, cnt, t, st); break;
	case TC_OP_FILE_IREAD: MPI_File_iread(fh, r, cnt, t, &h); break;
	case TC_OP_FILE_IREAD_AT: MPI_File_iread_at(fh, off, r, cnt, t, &h); break;
	case TC_OP_FILE_IREAD_ALL: MPI_File_iread_all(fh, r, cnt, t, &h); break;
	case TC_OP_FILE_IREAD_AT_ALL: MPI_File_iread_at_all(fh, off, r, cnt, t, &h); break;
	case TC_OP_FILE_IWRITE: MPI_File_iwrite(fh, w, cnt, t, &h); break;
	case TC_OP_FILE_IWRITE_AT: MPI_File_iwrite_at(fh, off, w, cnt, t, &h); break;
	case TC_OP_FILE_IWRITE_ALL: MPI_File_iwrite_all(fh, w, cnt, t, &h); break;
	case TC_OP_FILE_IWRITE_AT_ALL: MPI_File_iwrite_at_all(fh, off, w, cnt, t, &h); break;
	case TC_OP_FILE_IREAD_SHARED: MPI_File_iread_shared(fh, r, cnt, t, &h); break;
	case TC_OP_FILE_IWRITE_SHARED: MPI_File_iwrite_shared(fh, w, cnt, t, &h); break;
	default:
		return false;
	}
	if ((tc_op_flags(ev->op) & TC_OPF_NB) && (ev->fields & TC_F_REQUEST))
		tc_rp_req_add(s, ev->request)->h = h;
	return true;
}

bool tc_rp_io(struct tc_replay_mpi *s, const struct tc_event *ev)
{
	struct tc_rfile *f;

	if (ev->op == TC_OP_FILE_OPEN)
		return file_open(s, ev);
	if (!(ev->fields & TC_F_FILE) || !(f = file_find(s, ev->file)))
		return false;
	if (ev->op == TC_OP_FILE_CLOSE) {
		MPI_File_close(&f->f);
		f->valid = false;
		return true;
	}
	return file_rw(s, ev, f->f);
}

void tc_rp_io_release(struct tc_replay_mpi *s)
{
	char path[IO_PATH + 300];
	struct dirent *d;
	DIR *dir;

	free(s->files);
	s->files = NULL;
	s->nfiles = 0;
	if (!s->io_dir)
		return;
	/* files the trace left open are not closed (closing is collective):
	 * their names go with the directory */
	PMPI_Barrier(MPI_COMM_WORLD);
	if (s->rank == 0 && (dir = opendir(s->io_dir))) {
		while ((d = readdir(dir)))
			if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..") &&
			    (size_t)snprintf(path, sizeof(path), "%s/%s", s->io_dir, d->d_name) <
				    sizeof(path))
				unlink(path);
		closedir(dir);
		rmdir(s->io_dir);
	}
	free(s->io_dir);
	s->io_dir = NULL;
}
