/* bots_tbb.h: what the TBB versions share: the number of threads, from
   TBB_NUM_THREADS (as OMP_NUM_THREADS and DAG_NUM_THREADS for the others;
   default: one per core), and a pool started before the clock. */
#ifndef BOTS_TBB_H
#define BOTS_TBB_H
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <cstdlib>

static inline int bots_tbb_run(int argc, char **argv, int (*program)(int, char **)) {
    const char *env = std::getenv("TBB_NUM_THREADS");
    int threads = env ? std::atoi(env) : 0;
    if (threads <= 0) threads = (int)oneapi::tbb::info::default_concurrency();
    oneapi::tbb::global_control limit(oneapi::tbb::global_control::max_allowed_parallelism, (size_t)threads);
    oneapi::tbb::parallel_for(0, threads * 16, [](int) {});   /* the workers start before the clock */
    return program(argc, argv);
}
#endif
