/* The kernels of the GPU tests and benchmarks: one text, built for the CPU
   and OpenCL by including it, for CUDA by nvcc (kernels.cu), for HIP by
   hipcc --genco and for Level Zero as SPIR-V (see the Makefile). */
#include "dag_kernels.h"
#include "dag_blas.h"   /* dag_dgemm: cuBLAS or CLBlast where they load, this text elsewhere */
#include "dag_array.h"  /* its kernels, so each build here carries them too */

DAG_KERNEL(gpu_axpy, ((double, a), (DAG_GLOBAL const double *, x), (DAG_GLOBAL double *, y)),
    size_t i = DAG_INDEX();
    y[i] += a * x[i];
)

DAG_KERNEL(gpu_scale, ((float, s), (DAG_GLOBAL float *, v)),
    v[DAG_INDEX()] *= s;
)

/* Every index exactly once: the launch's bounds guard and grid cover [0, n). */
DAG_KERNEL(gpu_count, ((DAG_GLOBAL int *, visits)),
    visits[DAG_INDEX()] += 1;
)

/* A tile of a row-major matrix: rows x cols, ld elements apart. */
DAG_KERNEL(gpu_tile_add, ((int, cols), (int, ld), (double, v), (DAG_GLOBAL double *, t)),
    size_t i = DAG_INDEX();
    t[(i / (size_t)cols) * (size_t)ld + i % (size_t)cols] += v;
)

/* A small kernel for chains: one add per element. */
DAG_KERNEL(gpu_inc, ((DAG_GLOBAL float *, v)),
    v[DAG_INDEX()] += 1.0f;
)
