#include "compat.h"
#include "pool.h"
#include "xalloc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct job {
	tc_pool_fn fn;
	void *arg;
	struct job *next;
};

struct tc_pool {
	pthread_mutex_t lock;
	pthread_cond_t work;   /* signalled when a job is queued or on stop */
	pthread_cond_t idle;   /* signalled when pending drops to 0 */
	struct job *head, *tail;
	size_t pending;        /* queued + running */
	bool stop;
	unsigned nthreads;
	pthread_t *threads;
};

static void *worker(void *p)
{
	struct tc_pool *pool = p;

	pthread_mutex_lock(&pool->lock);
	for (;;) {
		struct job *j;

		while (!pool->head && !pool->stop)
			pthread_cond_wait(&pool->work, &pool->lock);
		if (!pool->head && pool->stop)
			break;
		j = pool->head;
		pool->head = j->next;
		if (!pool->head)
			pool->tail = NULL;
		pthread_mutex_unlock(&pool->lock);
		j->fn(j->arg);
		free(j);
		pthread_mutex_lock(&pool->lock);
		if (--pool->pending == 0)
			pthread_cond_broadcast(&pool->idle);
	}
	pthread_mutex_unlock(&pool->lock);
	return NULL;
}

struct tc_pool *tc_pool_new(unsigned nthreads)
{
	struct tc_pool *pool = tc_xcalloc(1, sizeof(*pool));

	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->work, NULL);
	pthread_cond_init(&pool->idle, NULL);
	if (nthreads <= 1)
		return pool;
	pool->threads = tc_xcalloc(nthreads, sizeof(*pool->threads));
	for (unsigned i = 0; i < nthreads; i++) {
		if (pthread_create(&pool->threads[i], NULL, worker, pool))
			break; /* run with the threads we got */
		pool->nthreads++;
	}
	return pool;
}

unsigned tc_pool_threads(const struct tc_pool *pool)
{
	return pool->nthreads ? pool->nthreads : 1;
}

void tc_pool_add(struct tc_pool *pool, tc_pool_fn fn, void *arg)
{
	struct job *j;

	if (!pool->nthreads) {
		fn(arg);
		return;
	}
	j = tc_xmalloc(sizeof(*j));
	j->fn = fn;
	j->arg = arg;
	j->next = NULL;
	pthread_mutex_lock(&pool->lock);
	if (pool->tail)
		pool->tail->next = j;
	else
		pool->head = j;
	pool->tail = j;
	pool->pending++;
	pthread_cond_signal(&pool->work);
	pthread_mutex_unlock(&pool->lock);
}

void tc_pool_join(struct tc_pool *pool)
{
	pthread_mutex_lock(&pool->lock);
	while (pool->pending)
		pthread_cond_wait(&pool->idle, &pool->lock);
	pthread_mutex_unlock(&pool->lock);
}

void tc_pool_free(struct tc_pool *pool)
{
	if (!pool)
		return;
	tc_pool_join(pool);
	pthread_mutex_lock(&pool->lock);
	pool->stop = true;
	pthread_cond_broadcast(&pool->work);
	pthread_mutex_unlock(&pool->lock);
	for (unsigned i = 0; i < pool->nthreads; i++)
		pthread_join(pool->threads[i], NULL);
	free(pool->threads);
	pthread_mutex_destroy(&pool->lock);
	pthread_cond_destroy(&pool->work);
	pthread_cond_destroy(&pool->idle);
	free(pool);
}

struct for_ctx {
	atomic_size_t next;
	size_t n;
	tc_pool_for_fn fn;
	void *ctx;
};

static void for_runner(void *p)
{
	struct for_ctx *f = p;
	size_t i;

	while ((i = atomic_fetch_add(&f->next, 1)) < f->n)
		f->fn(i, f->ctx);
}

void tc_pool_for(struct tc_pool *pool, size_t n, tc_pool_for_fn fn, void *ctx)
{
	struct for_ctx f;
	unsigned helpers;

	atomic_init(&f.next, 0);
	f.n = n;
	f.fn = fn;
	f.ctx = ctx;
	helpers = pool->nthreads;
	if ((size_t)helpers > n)
		helpers = (unsigned)n;
	/*
	 * The calling thread works too, so with T workers we queue T - 1
	 * runners and keep one core for ourselves; -jN means N busy threads.
	 */
	for (unsigned i = 1; i < helpers; i++)
		tc_pool_add(pool, for_runner, &f);
	for_runner(&f);
	tc_pool_join(pool);
}

unsigned tc_online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}
