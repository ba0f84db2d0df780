/* bench/gpu_chain.c: what dag.h's device layer costs over raw CUDA and HIP
   calls (bench/gpu_chain.h): for each backend named (cuda, hip; default
   both) that has a device,
   1. overhead: a chain of K kernels over one element each, so that
      launches dominate;
   2. chain: K small kernels (v[i] += 1 over 64 Ki floats) with the copy in
      and the copy back.
   Where a backend has no device it prints "skipped:" and why. Only dag.h's
   public API is used (Level Zero has no raw side here: its runtime's
   objects are the backend's own).

   Run: make bench-gpu */
#define DAG_IMPLEMENTATION
#include "kernels.h"
#include "gpu_chain.h"

int main(int argc, char **argv) {
    int k = 1000, rounds = 25, ok = 1;
    dag_setup(&(dag_desc){ .num_threads = 2 });
    static const struct { const char *arg; dag_backend b; } all[] = { { "cuda", DAG_CUDA }, { "hip", DAG_HIP } };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        int wanted = argc < 2;
        for (int a = 1; a < argc; a++) wanted |= strcmp(argv[a], all[i].arg) == 0;
        if (!wanted) continue;
        if (!dag_backend_available(all[i].b)) {
            printf("skipped: %s\n", dag_backend_status(all[i].b));
            continue;
        }
        printf("%s\n", dag_backend_status(all[i].b));
        ok &= gpu_chain_run(all[i].b, k, rounds);
    }
    dag_shutdown();
    return !ok;
}
