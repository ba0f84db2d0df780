/* nvcc -DDAG_BACKEND_CUDA: the test kernels as CUDA (see kernels.h) */
#include "kernels.h"
