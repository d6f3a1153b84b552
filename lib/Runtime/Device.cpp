//===- Device.cpp - The CUDA driver and the GPU -----------------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the run-time loading of the CUDA driver, the opening
// of the GPU (primary context, stream, attributes), the architecture check
// and device allocations.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Runtime/Device.h"

#include <algorithm>
#include <dlfcn.h>

using namespace mlir::tfuse::rt;

//===----------------------------------------------------------------------===//
// The driver library
//===----------------------------------------------------------------------===//

namespace {

DriverApi theDriver;

using GetProcAddressFn = CUresult(CUDAAPI *)(const char *, void **, int,
                                             cuuint64_t,
                                             CUdriverProcAddressQueryResult *);

bool loadDriver(std::string &error) {
  void *library = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = ::dlerror();
    error = std::string("the CUDA driver library libcuda.so.1 cannot be "
                        "loaded (is the NVIDIA driver installed?): ") +
            (why ? why : "unknown error");
    return false;
  }
  auto getProc = reinterpret_cast<GetProcAddressFn>(
      ::dlsym(library, "cuGetProcAddress_v2"));
  if (!getProc) {
    error = "the CUDA driver is too old: libcuda.so.1 has no "
            "cuGetProcAddress_v2 (a driver for CUDA 12 or newer is needed)";
    return false;
  }
  // Ask for each entry point as of the CUDA version we were compiled
  // against, so that the ABI matches the prototypes in cuda.h.
#define TFUSE_RESOLVE_DRIVER_FUNCTION(name)                                    \
  {                                                                            \
    void *fn = nullptr;                                                        \
    CUdriverProcAddressQueryResult status;                                     \
    CUresult r = getProc(#name, &fn, CUDA_VERSION,                             \
                         CU_GET_PROC_ADDRESS_DEFAULT, &status);                \
    if (r != CUDA_SUCCESS || !fn) {                                            \
      error = "the CUDA driver lacks " #name " (for CUDA " +                   \
              std::to_string(CUDA_VERSION / 1000) + "." +                      \
              std::to_string(CUDA_VERSION % 1000 / 10) +                       \
              "); update the NVIDIA driver";                                   \
      return false;                                                            \
    }                                                                          \
    theDriver.name = reinterpret_cast<decltype(theDriver.name)>(fn);           \
  }
  TFUSE_DRIVER_FUNCTIONS(TFUSE_RESOLVE_DRIVER_FUNCTION)
#undef TFUSE_RESOLVE_DRIVER_FUNCTION
  return true;
}

} // namespace

const DriverApi *mlir::tfuse::rt::loadDriverApi(std::string &error) {
  static std::string loadError;
  static const bool loaded = loadDriver(loadError);
  if (!loaded) {
    error = loadError;
    return nullptr;
  }
  return &theDriver;
}

const DriverApi &mlir::tfuse::rt::driver() { return theDriver; }

std::string mlir::tfuse::rt::describeCuError(const char *call,
                                             CUresult result) {
  const char *name = nullptr;
  const char *text = nullptr;
  if (theDriver.cuGetErrorName)
    theDriver.cuGetErrorName(result, &name);
  if (theDriver.cuGetErrorString)
    theDriver.cuGetErrorString(result, &text);
  std::string out = std::string(call) + " failed: ";
  out += name ? name : "CUresult " + std::to_string(static_cast<int>(result));
  if (text)
    out += std::string(" (") + text + ")";
  return out;
}

//===----------------------------------------------------------------------===//
// Device
//===----------------------------------------------------------------------===//

std::unique_ptr<Device> mlir::tfuse::rt::Device::open(int ordinal,
                                                      std::string &error) {
  std::string why;
  if (!loadDriverApi(why)) {
    error = "no CUDA device: " + why;
    return nullptr;
  }
  CUresult init = driver().cuInit(0);
  if (init != CUDA_SUCCESS) {
    error = "no CUDA device: " + describeCuError("cuInit", init);
    return nullptr;
  }
  int count = 0;
  TFUSE_CU(error, cuDeviceGetCount, &count);
  if (count <= ordinal) {
    error = "no CUDA device: the driver reports " + std::to_string(count) +
            " device" + (count == 1 ? "" : "s") + ", device " +
            std::to_string(ordinal) + " was asked for";
    return nullptr;
  }

  std::unique_ptr<Device> d(new Device());
  DeviceInfo &info = d->deviceInfo;
  info.ordinal = ordinal;
  TFUSE_CU(error, cuDeviceGet, &d->device, ordinal);
  char name[256] = {0};
  TFUSE_CU(error, cuDeviceGetName, name, sizeof(name) - 1, d->device);
  info.name = name;
  auto attribute = [&](CUdevice_attribute a, int &value) -> bool {
    TFUSE_CU(error, cuDeviceGetAttribute, &value, a, d->device);
    return true;
  };
  if (!attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, info.ccMajor) ||
      !attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, info.ccMinor) ||
      !attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, info.smCount) ||
      !attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, info.l2CacheBytes) ||
      !attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                 info.maxSharedPerBlockOptin))
    return nullptr;
  size_t total = 0;
  TFUSE_CU(error, cuDeviceTotalMem, &total, d->device);
  info.totalMemory = static_cast<int64_t>(total);
  TFUSE_CU(error, cuDriverGetVersion, &info.driverVersion);

  // The primary context is the one the CUDA runtime (inside cuBLASLt) uses.
  TFUSE_CU(error, cuDevicePrimaryCtxRetain, &d->context, d->device);
  TFUSE_CU(error, cuCtxSetCurrent, d->context);
  TFUSE_CU(error, cuStreamCreate, &d->deviceStream, CU_STREAM_DEFAULT);
  return d;
}

mlir::tfuse::rt::Device::~Device() {
  if (deviceStream)
    driver().cuStreamDestroy(deviceStream);
  if (context)
    driver().cuDevicePrimaryCtxRelease(device);
}

bool mlir::tfuse::rt::Device::synchronize(const std::string &what,
                                          std::string &error) {
  CUresult r = driver().cuStreamSynchronize(deviceStream);
  if (r != CUDA_SUCCESS) {
    error = what + ": " + describeCuError("cuStreamSynchronize", r);
    return false;
  }
  return true;
}

bool mlir::tfuse::rt::checkArchitecture(const std::string &planArch,
                                        const DeviceInfo &device,
                                        std::string &error,
                                        std::string &warning) {
  // "sm_90", "sm_90a", "sm_100f".
  std::string digits = planArch.size() > 3 ? planArch.substr(3) : "";
  bool specific =
      !digits.empty() && (digits.back() == 'a' || digits.back() == 'f');
  if (specific)
    digits.pop_back();
  int plan = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') {
      error = "the plan's target architecture '" + planArch + "' is invalid";
      return false;
    }
    plan = plan * 10 + (c - '0');
  }
  int have = device.ccMajor * 10 + device.ccMinor;
  if (have < plan) {
    error = "the plan was compiled for " + planArch + " but device " +
            std::to_string(device.ordinal) + " (" + device.name + ") is " +
            device.smArch() +
            ": code for a newer architecture cannot run on it; recompile "
            "with a target for this GPU";
    return false;
  }
  if (have != plan && specific) {
    error = "the plan was compiled for " + planArch +
            ", which runs only on compute capability " +
            std::to_string(plan / 10) + "." + std::to_string(plan % 10) +
            ", but device " + std::to_string(device.ordinal) + " (" +
            device.name + ") is " + device.smArch();
    return false;
  }
  if (have != plan)
    warning = "the plan was compiled for " + planArch + " but device " +
              std::to_string(device.ordinal) + " (" + device.name + ") is " +
              device.smArch() +
              "; its PTX is JIT-compiled, and predicted times refer to the "
              "plan's target, not this GPU";
  return true;
}

//===----------------------------------------------------------------------===//
// DeviceMemory
//===----------------------------------------------------------------------===//

mlir::tfuse::rt::DeviceMemory::~DeviceMemory() {
  if (pointer)
    driver().cuMemFree(pointer);
}

mlir::tfuse::rt::DeviceMemory::DeviceMemory(DeviceMemory &&other) noexcept
    : pointer(other.pointer), bytes(other.bytes) {
  other.pointer = 0;
  other.bytes = 0;
}

DeviceMemory &
mlir::tfuse::rt::DeviceMemory::operator=(DeviceMemory &&other) noexcept {
  if (this != &other) {
    if (pointer)
      driver().cuMemFree(pointer);
    pointer = other.pointer;
    bytes = other.bytes;
    other.pointer = 0;
    other.bytes = 0;
  }
  return *this;
}

bool mlir::tfuse::rt::DeviceMemory::allocate(size_t size, std::string &error) {
  size_t rounded = (std::max<size_t>(size, 1) + 255) / 256 * 256;
  CUdeviceptr p = 0;
  CUresult r = driver().cuMemAlloc(&p, rounded);
  if (r != CUDA_SUCCESS) {
    error = describeCuError("cuMemAlloc", r) + " (" + std::to_string(rounded) +
            " bytes)";
    return false;
  }
  if (pointer)
    driver().cuMemFree(pointer);
  pointer = p;
  bytes = rounded;
  return true;
}
