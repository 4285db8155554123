/*
 * pool.h - a fixed thread pool.
 *
 * Jobs run in any order on any worker; callers that need deterministic
 * output store results per job index and reduce them in index order on
 * the calling thread. Workers never print.
 */
#ifndef TC_POOL_H
#define TC_POOL_H

#include "compat.h"

struct tc_pool;

typedef void (*tc_pool_fn)(void *arg);
/* A loop body: called once for every index in [0, n). */
typedef void (*tc_pool_for_fn)(size_t index, void *ctx);

/* Returns new. nthreads <= 1 runs every job on the calling thread. */
struct tc_pool *tc_pool_new(unsigned nthreads);
/* Frees the pool after waiting for queued jobs; NULL is fine. */
void tc_pool_free(struct tc_pool *pool);
unsigned tc_pool_threads(const struct tc_pool *pool);
/* Queue fn(arg); runs it at once when the pool has no threads. */
void tc_pool_add(struct tc_pool *pool, tc_pool_fn fn, void *arg);
/* Wait until every queued job has finished. */
void tc_pool_join(struct tc_pool *pool);
/*
 * Run fn(i, ctx) for i in [0, n), spread over the workers and the calling
 * thread, and return when all are done. Indices are handed out in
 * increasing order (a shared counter), so a slow index does not hold up
 * the others.
 */
void tc_pool_for(struct tc_pool *pool, size_t n, tc_pool_for_fn fn, void *ctx);

/* Number of online CPUs (at least 1). */
unsigned tc_online_cpus(void);

#endif
