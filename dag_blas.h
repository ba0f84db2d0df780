/* dag_blas.h: dense tile kernels for dag.h, one text for every backend,
   and the vendor library where a backend has one.

       #include "dag_blas.h"      (in one file of kernels: it defines them)

       dag_spawn(DAG_LAUNCH(dag_dgemm, m * n), Val(transa), Val(transb), Val(m), Val(n), Val(k),
                 Val(alpha), In(a, lda * ka), Val(lda), In(b, ldb * kb), Val(ldb), Val(beta),
                 InOut(c, ldc * n), Val(ldc));

   dag_dgemm (double) and dag_sgemm (float, alpha and beta float too):
   C = alpha * op(A) * op(B) + beta * C on column-major tiles
   (BLAS's convention: element (i, j) of C is c[i + j * ldc]); op(X) is X or,
   with trans = 1, its transpose; C is m x n and the inner dimension k. The
   launch range is m * n, one item per element of C.
   - CPU, HIP and Level Zero run the text below (built ahead of time for
     HIP and Level Zero like any kernel of this file);
   - CUDA calls cuBLAS's cublasDgemm / cublasSgemm on the device's stream (dag_cuda.h
     loads libcublas at run time; without it the kernel has no CUDA build
     and runs elsewhere). nvcc therefore skips it here.
   - OpenCL calls CLBlast's CLBlastDgemm / CLBlastSgemm on the device's
     queue where libclblast.so.1 loads (dag_opencl.h), else builds the text.
   dag_desc.no_vendor_blas keeps the text everywhere (CUDA then has none).
   These are the tile kernels dag_array.h's linear algebra builds on. */
#ifndef DAG_BLAS_H_INCLUDED
#define DAG_BLAS_H_INCLUDED

#include "dag_kernels.h"

#if !defined(__CUDACC__) || defined(__HIP__)
#define DAG__BLAS_GEMM(NAME, T)                                                                                 \
    DAG_KERNEL(NAME, ((int, transa), (int, transb), (int, m), (int, n), (int, k), (T, alpha),                   \
                      (DAG_GLOBAL const T *, a), (int, lda), (DAG_GLOBAL const T *, b), (int, ldb), (T, beta),  \
                      (DAG_GLOBAL T *, c), (int, ldc)),                                                         \
        size_t idx = DAG_INDEX();                                                                               \
        size_t i = idx % (size_t)m, j = idx / (size_t)m; /* the range is m * n */                               \
        (void)n;                                                                                                \
        T s = (T)0;                                                                                             \
        for (int l = 0; l < k; l++) {                                                                           \
            T x = transa ? a[(size_t)l + i * (size_t)lda] : a[i + (size_t)l * (size_t)lda];                     \
            T y = transb ? b[j + (size_t)l * (size_t)ldb] : b[(size_t)l + j * (size_t)ldb];                     \
            s += x * y;                                                                                         \
        }                                                                                                       \
        c[i + j * (size_t)ldc] = alpha * s + (beta == (T)0 ? (T)0 : beta * c[i + j * (size_t)ldc]);             \
    )
DAG__BLAS_GEMM(dag_dgemm, double)
DAG__BLAS_GEMM(dag_sgemm, float)
#undef DAG__BLAS_GEMM
#endif

#endif /* DAG_BLAS_H_INCLUDED */
