// WF_HOST_DEVICE marks functions shared by the CPU and CUDA backends; g++ sees plain inline code.
#pragma once

#if defined(__CUDACC__)
#define WF_HOST_DEVICE __host__ __device__
#else
#define WF_HOST_DEVICE
#endif
