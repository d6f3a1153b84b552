//===- Device.h - The CUDA driver and the GPU -------------------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the runtime's access to the CUDA driver API and to the
// GPU it runs on.
//
// The driver library (libcuda.so.1) is loaded at run time with dlopen and
// every entry point is resolved through cuGetProcAddress for the CUDA
// version the runtime was compiled against, instead of being linked: a
// machine without an NVIDIA driver can then still run `tfuse-run`, which
// reports "no CUDA device: ..." instead of failing to start.
//
// Every driver call goes through TFUSE_CU, which turns a failing CUresult
// into an error message naming the call ("cuMemAlloc failed:
// CUDA_ERROR_OUT_OF_MEMORY (out of memory)") and returns from the calling
// function with `{}` (false, nullopt or nullptr). No exceptions, no abort.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_RUNTIME_DEVICE_H
#define TFUSE_RUNTIME_DEVICE_H

#include <cuda.h>

#include <cstdint>
#include <memory>
#include <string>

namespace mlir::tfuse::rt {

/// The driver entry points the runtime uses. Names that cuda.h maps to a
/// versioned symbol (cuMemAlloc -> cuMemAlloc_v2) name the same versioned
/// member here, so `driver().cuMemAlloc(...)` reads as the API does.
#define TFUSE_DRIVER_FUNCTIONS(X)                                              \
  X(cuInit)                                                                    \
  X(cuDriverGetVersion)                                                        \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetName)                                                           \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDeviceTotalMem)                                                          \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuDevicePrimaryCtxRelease)                                                 \
  X(cuCtxSetCurrent)                                                           \
  X(cuCtxSynchronize)                                                          \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuFuncGetAttribute)                                                        \
  X(cuFuncSetAttribute)                                                        \
  X(cuLaunchKernel)                                                            \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemcpyHtoD)                                                              \
  X(cuMemcpyDtoH)                                                              \
  X(cuMemsetD8Async)                                                           \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamBeginCapture)                                                      \
  X(cuStreamEndCapture)                                                        \
  X(cuStreamIsCapturing)                                                       \
  X(cuGraphInstantiateWithFlags)                                               \
  X(cuGraphLaunch)                                                             \
  X(cuGraphExecDestroy)                                                        \
  X(cuGraphDestroy)                                                            \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy)                                                            \
  X(cuEventRecord)                                                             \
  X(cuEventSynchronize)                                                        \
  X(cuEventElapsedTime)

struct DriverApi {
#define TFUSE_DECLARE_DRIVER_FUNCTION(name) decltype(&::name) name = nullptr;
  TFUSE_DRIVER_FUNCTIONS(TFUSE_DECLARE_DRIVER_FUNCTION)
#undef TFUSE_DECLARE_DRIVER_FUNCTION
};

/// Loads libcuda.so.1 and resolves every entry point, once. Returns null and
/// sets `error` ("the CUDA driver library libcuda.so.1 cannot be loaded:
/// ...") on failure.
const DriverApi *loadDriverApi(std::string &error);

/// The loaded driver; only valid after loadDriverApi succeeded.
const DriverApi &driver();

/// "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
std::string describeCuError(const char *call, CUresult result);

/// Calls driver().FN(ARGS...); on failure stores the message in ERROR and
/// returns `{}` from the enclosing function.
#define TFUSE_CU(error, fn, ...)                                               \
  do {                                                                         \
    CUresult tfuseCuResult_ = ::mlir::tfuse::rt::driver().fn(__VA_ARGS__);     \
    if (tfuseCuResult_ != CUDA_SUCCESS) {                                      \
      (error) = ::mlir::tfuse::rt::describeCuError(#fn, tfuseCuResult_);       \
      return {};                                                               \
    }                                                                          \
  } while (0)

/// What the runtime needs to know about the GPU.
struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int ccMajor = 0;
  int ccMinor = 0;
  int smCount = 0;
  int64_t totalMemory = 0;
  int l2CacheBytes = 0;
  int maxSharedPerBlockOptin = 0;
  int driverVersion = 0;

  /// "sm_90".
  std::string smArch() const {
    return "sm_" + std::to_string(ccMajor * 10 + ccMinor);
  }
};

/// The GPU with its primary context (shared with cuBLASLt, which uses the
/// runtime API) current on the calling thread, and one stream.
class Device {
public:
  /// Initializes the driver and opens device `ordinal`. Errors start with
  /// "no CUDA device: " when there is no driver or no GPU.
  static std::unique_ptr<Device> open(int ordinal, std::string &error);
  ~Device();
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  const DeviceInfo &info() const { return deviceInfo; }
  CUstream stream() const { return deviceStream; }
  /// Waits for the stream; names `what` in the error.
  bool synchronize(const std::string &what, std::string &error);

private:
  Device() = default;

  DeviceInfo deviceInfo;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream deviceStream = nullptr;
};

/// Checks that code compiled for `planArch` ("sm_90", "sm_90a") can run on
/// the device. PTX for sm_XY runs (JIT-compiled) on compute capability X.Y
/// and newer; "a"/"f" variants only on X.Y itself. Sets `warning` when the
/// device differs from the plan's target but can run it.
bool checkArchitecture(const std::string &planArch, const DeviceInfo &device,
                       std::string &error, std::string &warning);

/// A device allocation freed on destruction. Sizes are rounded up to 256
/// bytes; cuMemAlloc aligns to at least 256.
class DeviceMemory {
public:
  DeviceMemory() = default;
  ~DeviceMemory();
  DeviceMemory(DeviceMemory &&other) noexcept;
  DeviceMemory &operator=(DeviceMemory &&other) noexcept;

  bool allocate(size_t bytes, std::string &error);
  CUdeviceptr get() const { return pointer; }
  size_t size() const { return bytes; }

private:
  CUdeviceptr pointer = 0;
  size_t bytes = 0;
};

} // namespace mlir::tfuse::rt

#endif // TFUSE_RUNTIME_DEVICE_H
