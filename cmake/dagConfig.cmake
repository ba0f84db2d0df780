# find_package(dag [COMPONENTS OpenCL CUDA HIP LevelZero]) for dag.h, installed
# by `make install PREFIX=...`.
#
#   dag::dag         the headers, Threads::Threads and libm: a CPU program
#   dag::opencl      + -DDAG_BACKEND_OPENCL (libOpenCL is loaded at run time: -ldl)
#   dag::hip         + -DDAG_BACKEND_HIP (libamdhip64 is loaded at run time: -ldl)
#   dag::level_zero  + -DDAG_BACKEND_LEVEL_ZERO (needs ze_api.h, from libze-dev)
#   dag::cuda        + -DDAG_BACKEND_CUDA, CUDA's include directory and its
#                    static runtime (find_package(CUDAToolkit))
#
# Link the backend targets you want to the target whose sources define
# DAG_IMPLEMENTATION; they combine. A component asked for that cannot be
# provided (no CUDA toolkit, no ze_api.h) sets dag_FOUND to false, saying why.
include(CMakeFindDependencyMacro)
find_dependency(Threads)

get_filename_component(_dag_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

if(NOT TARGET dag::dag)
  add_library(dag::dag INTERFACE IMPORTED)
  set_target_properties(dag::dag PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${_dag_prefix}/include"
    INTERFACE_LINK_LIBRARIES "Threads::Threads;m")
endif()

# dag::NAME: dag::dag plus a backend's define and libraries
function(_dag_backend name define)
  if(NOT TARGET dag::${name})
    add_library(dag::${name} INTERFACE IMPORTED)
    set_target_properties(dag::${name} PROPERTIES
      INTERFACE_COMPILE_DEFINITIONS "${define}"
      INTERFACE_LINK_LIBRARIES "dag::dag;${ARGN}")
  endif()
endfunction()

_dag_backend(opencl DAG_BACKEND_OPENCL ${CMAKE_DL_LIBS})
_dag_backend(hip DAG_BACKEND_HIP ${CMAKE_DL_LIBS})

find_path(DAG_LEVEL_ZERO_INCLUDE_DIR level_zero/ze_api.h)
if(DAG_LEVEL_ZERO_INCLUDE_DIR)
  _dag_backend(level_zero DAG_BACKEND_LEVEL_ZERO ${CMAKE_DL_LIBS})
  set_property(TARGET dag::level_zero APPEND PROPERTY INTERFACE_INCLUDE_DIRECTORIES "${DAG_LEVEL_ZERO_INCLUDE_DIR}")
endif()

if("CUDA" IN_LIST dag_FIND_COMPONENTS)
  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_FOUND)
    _dag_backend(cuda DAG_BACKEND_CUDA CUDA::cudart_static ${CMAKE_DL_LIBS})
  endif()
endif()

set(dag_OpenCL_FOUND TRUE)
set(dag_HIP_FOUND TRUE)
set(dag_LevelZero_FOUND FALSE)
set(dag_CUDA_FOUND FALSE)
if(TARGET dag::level_zero)
  set(dag_LevelZero_FOUND TRUE)
endif()
if(TARGET dag::cuda)
  set(dag_CUDA_FOUND TRUE)
endif()
foreach(_dag_c IN LISTS dag_FIND_COMPONENTS)
  if(NOT _dag_c MATCHES "^(OpenCL|CUDA|HIP|LevelZero)$")
    set(dag_FOUND FALSE)
    set(dag_NOT_FOUND_MESSAGE "unknown component ${_dag_c} (OpenCL, CUDA, HIP, LevelZero)")
  elseif(dag_FIND_REQUIRED_${_dag_c} AND NOT dag_${_dag_c}_FOUND)
    set(dag_FOUND FALSE)
    set(dag_NOT_FOUND_MESSAGE "component ${_dag_c}: ${_dag_c} SDK not found (CUDA: the CUDA toolkit; LevelZero: libze-dev)")
  endif()
endforeach()
unset(_dag_prefix)
