/* dag.h's public part in a CUDA translation unit under nvcc: host code
   there spawns tasks, and DAG_KERNEL defines a __global__ function and its
   record (twice__cuda), as a kernels file built for CUDA does. */
#include "dag_kernels.h"

DAG_KERNEL(twice, ((DAG_GLOBAL float *, v)),
    v[DAG_INDEX()] *= 2.0f;
)

DAG_TASK(int, add, (int, a), (int, b)) { return a + b; }
DAG_TASK(float, first_of, (const float *, v)) { return v[0]; }

int spawn_from_a_cuda_unit(void) {
    int r = 0;
    dag_fetch(dag_spawn(add, DAG_VAL(1), DAG_VAL(2)), &r);
    static float v[2] = {1, 2};
    float f = 0;
    dag_fetch(dag_spawn(first_of, DAG_IN(v, 2)), &f);   /* the argument checks' templates, under nvcc */
    return r + (twice__cuda.entry != 0);
}
