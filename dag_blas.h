/* dag_blas.h: dense tile kernels for dag.h, one text for every backend,
   and the vendor library where a backend has one.

       #include "dag_blas.h"      (in one file of kernels: it defines them)

       dag_spawn(DAG_LAUNCH(dag_dgemm, m * n), Val(transa), Val(transb), Val(m), Val(n), Val(k),
                 Val(alpha), In(a, lda * ka), Val(lda), In(b, ldb * kb), Val(ldb), Val(beta),
                 InOut(c, ldc * n), Val(ldc));

   dag_dgemm: C = alpha * op(A) * op(B) + beta * C on column-major tiles
   (BLAS's convention: element (i, j) of C is c[i + j * ldc]); op(X) is X or,
   with trans = 1, its transpose; C is m x n and the inner dimension k. The
   launch range is m * n, one item per element of C.
   - CPU, OpenCL, HIP and Level Zero run the text below (built ahead of time
     for HIP and Level Zero like any kernel of this file);
   - CUDA calls cuBLAS's cublasDgemm on the device's stream (dag_cuda.h
     loads libcublas at run time; without it the kernel has no CUDA build
     and runs elsewhere). nvcc therefore skips it here.
   These are the tile kernels dag_array.h's linear algebra builds on. */
#ifndef DAG_BLAS_H_INCLUDED
#define DAG_BLAS_H_INCLUDED

#include "dag_kernels.h"

#if !defined(__CUDACC__) || defined(__HIP__)
DAG_KERNEL(dag_dgemm, ((int, transa), (int, transb), (int, m), (int, n), (int, k), (double, alpha),
                       (DAG_GLOBAL const double *, a), (int, lda), (DAG_GLOBAL const double *, b), (int, ldb),
                       (double, beta), (DAG_GLOBAL double *, c), (int, ldc)),
    size_t idx = DAG_INDEX();
    size_t i = idx % (size_t)m, j = idx / (size_t)m;   /* the range is m * n */
    (void)n;
    double s = 0.0;
    for (int l = 0; l < k; l++) {
        double x = transa ? a[(size_t)l + i * (size_t)lda] : a[i + (size_t)l * (size_t)lda];
        double y = transb ? b[j + (size_t)l * (size_t)ldb] : b[(size_t)l + j * (size_t)ldb];
        s += x * y;
    }
    c[i + j * (size_t)ldc] = alpha * s + (beta == 0.0 ? 0.0 : beta * c[i + j * (size_t)ldc]);
)
#endif

#endif /* DAG_BLAS_H_INCLUDED */
