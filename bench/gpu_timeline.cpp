// A GPU timeline without Nsight Systems (the device machines have none): a CUPTI injection
// library that records every kernel, copy, memset and CUDA runtime call of a process with their
// start and end times (one clock for host and device), and writes them as CSV when the process
// exits. Used by scripts/device/timeline.sh to find where a run leaves the GPU idle.
//
//   CUDA_INJECTION64_PATH=build/bench/libwf_gpu_timeline.so WF_TIMELINE=trace.csv ./program ...
//
// Columns: what (kernel, copy, memset, api), start_ns, end_ns, stream (api: thread), bytes, name.
#include <cupti.h>

#include <cxxabi.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace {

constexpr std::size_t buffer_bytes = 8U << 20;

std::FILE* trace_file = nullptr;
std::mutex trace_mutex;

/// The kernel's name without namespaces' template arguments and parameters: "warp_rr_sets<true>".
std::string kernel_name(const char* mangled) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = status == 0 && demangled != nullptr ? demangled : mangled;
  std::free(demangled);
  if (const auto paren = name.find('('); paren != std::string::npos) name.resize(paren);
  // Drop the return type and namespaces: keep what follows the last "::" outside template brackets.
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '<') ++depth;
    if (name[i] == '>') --depth;
    if (depth == 0 && (name[i] == ' ' || (name[i] == ':' && i + 1 < name.size() && name[i + 1] == ':'))) start = i + 1;
  }
  name = name.substr(name[start] == ':' ? start + 1 : start);
  for (char& c : name) {
    if (c == ',') c = ';';  // the CSV stays one field per column
  }
  return name;
}

const char* copy_kind(std::uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
      return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
      return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
      return "DtoD";
    default:
      return "other";
  }
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, buffer_bytes));
  *size = buffer_bytes;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid) {
  const std::lock_guard lock(trace_mutex);
  CUpti_Activity* record = nullptr;
  while (trace_file != nullptr && cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      case CUPTI_ACTIVITY_KIND_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        std::fprintf(trace_file, "kernel,%llu,%llu,%u,0,%s\n", static_cast<unsigned long long>(k->start),
                     static_cast<unsigned long long>(k->end), k->streamId, kernel_name(k->name).c_str());
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        std::fprintf(trace_file, "copy,%llu,%llu,%u,%llu,%s\n", static_cast<unsigned long long>(m->start),
                     static_cast<unsigned long long>(m->end), m->streamId, static_cast<unsigned long long>(m->bytes),
                     copy_kind(m->copyKind));
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        std::fprintf(trace_file, "memset,%llu,%llu,%u,%llu,memset\n", static_cast<unsigned long long>(m->start),
                     static_cast<unsigned long long>(m->end), m->streamId, static_cast<unsigned long long>(m->bytes));
        break;
      }
      case CUPTI_ACTIVITY_KIND_RUNTIME: {
        const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
        const char* name = nullptr;
        if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, a->cbid, &name) != CUPTI_SUCCESS || name == nullptr) {
          name = "unknown";
        }
        std::fprintf(trace_file, "api,%llu,%llu,%u,0,%s\n", static_cast<unsigned long long>(a->start),
                     static_cast<unsigned long long>(a->end), a->threadId, name);
        break;
      }
      default:
        break;
    }
  }
  std::free(buffer);
}

void flush_at_exit() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  const std::lock_guard lock(trace_mutex);
  if (trace_file != nullptr) std::fclose(trace_file);
  trace_file = nullptr;
}

bool check(CUptiResult result, const char* what) {
  if (result == CUPTI_SUCCESS) return true;
  const char* message = nullptr;
  cuptiGetResultString(result, &message);
  std::fprintf(stderr, "wf-gpu-timeline: %s failed: %s\n", what, message != nullptr ? message : "unknown error");
  return false;
}

}  // namespace

/// Called by the CUDA driver when CUDA_INJECTION64_PATH names this library.
extern "C" int InitializeInjection(void) {
  const char* path = std::getenv("WF_TIMELINE");
  if (path == nullptr || *path == '\0') path = "gpu_timeline.csv";
  trace_file = std::fopen(path, "w");
  if (trace_file == nullptr) {
    std::fprintf(stderr, "wf-gpu-timeline: cannot write %s: %s\n", path, std::strerror(errno));
    return 0;
  }
  std::fprintf(trace_file, "what,start_ns,end_ns,stream,bytes,name\n");
  if (!check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "cuptiActivityRegisterCallbacks"))
    return 0;
  for (const auto kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
                          CUPTI_ACTIVITY_KIND_RUNTIME}) {
    if (!check(cuptiActivityEnable(kind), "cuptiActivityEnable")) return 0;
  }
  std::atexit(flush_at_exit);
  return 1;
}
