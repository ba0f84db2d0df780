/* dag_hip.h loads libamdhip64 with its own types, and dag_gpu_stream.h's
   constants stand for HIP's: here they meet the SDK's own header
   (libamdhip64-dev), which cannot share a program's translation unit with
   CUDA's. Built by make check-compile where the header exists. */
#define __HIP_PLATFORM_AMD__ 1
#include <hip/hip_runtime_api.h>
#define DAG_IMPLEMENTATION
#define DAG_BACKEND_HIP
#include "dag.h"

_Static_assert(DAG__GPU_STREAM_NON_BLOCKING == hipStreamNonBlocking && DAG__GPU_EVENT_DEFAULT == hipEventDefault &&
                   DAG__GPU_EVENT_DISABLE_TIMING == hipEventDisableTiming &&
                   DAG__GPU_HOST_ALLOC_PORTABLE == hipHostMallocPortable &&
                   DAG__GPU_HOST_TO_DEVICE == (int)hipMemcpyHostToDevice &&
                   DAG__GPU_DEVICE_TO_HOST == (int)hipMemcpyDeviceToHost &&
                   DAG__GPU_ERROR_INVALID_PITCH_VALUE == (int)hipErrorInvalidPitchValue &&
                   DAG__GPU_ERROR_NOT_READY == (int)hipErrorNotReady &&
                   DAG__GPU_ERROR_PEER_ACCESS_ALREADY_ENABLED == (int)hipErrorPeerAccessAlreadyEnabled,
               "dag_gpu_stream.h's constants differ from HIP's");
_Static_assert(sizeof(hipError_t) == sizeof(int) && sizeof(hipDevice_t) == sizeof(DAG__HIP_Device_t) &&
                   sizeof(hipStream_t) == sizeof(void *) && sizeof(hipEvent_t) == sizeof(void *) &&
                   sizeof(hipModule_t) == sizeof(DAG__HIP_Module_t) &&
                   sizeof(hipFunction_t) == sizeof(DAG__HIP_Function_t),
               "dag_hip.h's types differ from HIP's");

int main(void) {
    dag_setup(NULL);   /* without a GPU the backend says why; the CPU runs */
    return dag_shutdown() == DAG_OK ? 0 : 1;
}
