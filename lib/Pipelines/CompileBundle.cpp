//===- CompileBundle.cpp - tfuse-compile's pipeline -------------*- C++ -*-===//
//
// The stages of tfuse-compile, each optionally dumped: decomposed and fused
// tfuse IR, the kernels in upstream dialects, the NVVM module, PTX.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Pipelines/CompileBundle.h"
#include "tfuse/Analysis/TargetLoading.h"
#include "tfuse/Analysis/TrafficAnalysis.h"
#include "tfuse/Conversion/PlanBuilder.h"
#include "tfuse/InitAll.h"
#include "tfuse/Transforms/FusionPlanner.h"
#include "tfuse/Transforms/Passes.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tfuse;

void mlir::tfuse::registerCompileBundleDependencies(DialectRegistry &registry) {
  registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerAllToLLVMIRTranslations(registry);
}

namespace {

std::string print(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

class Dumper {
public:
  explicit Dumper(StringRef dir) : dir(dir.str()) {}
  void operator()(StringRef name, const std::string &text) {
    if (dir.empty())
      return;
    llvm::sys::fs::create_directories(dir);
    SmallString<256> path(dir);
    llvm::sys::path::append(path, name);
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (!ec)
      os << text;
  }

private:
  std::string dir;
};

/// $CUDA_HOME, $CUDA_PATH or /usr/local/cuda, whichever holds libdevice.
std::string findCudaToolkit() {
  for (const char *variable : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *path = std::getenv(variable))
      return path;
  return llvm::sys::fs::exists("/usr/local/cuda/nvvm/libdevice")
             ? "/usr/local/cuda"
             : "";
}

/// The PTX text of the single object of the gpu.binary left by
/// gpu-module-to-binary{format=isa}.
FailureOr<std::string> lowerToPtx(ModuleOp container, const GpuTarget &target,
                                  Dumper &dump) {
  PassManager pm(container.getContext());
  GpuNVVMAttachTargetOptions attach;
  attach.chip = target.smArch;
  attach.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(attach));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createSCFToControlFlowPass());
  ConvertGpuOpsToNVVMOpsOptions toNVVM;
  // Every tensor has fewer than 2^31 elements (the plan checks), so 32-bit
  // index arithmetic is exact and much cheaper than 64-bit division.
  toNVVM.indexBitwidth = 32;
  toNVVM.useBarePtrCallConv = true;
  kernels.addPass(createConvertGpuOpsToNVVMOps(toNVVM));
  pm.addPass(createReconcileUnrealizedCastsPass());
  if (failed(pm.run(container)))
    return failure();
  dump("04-nvvm.mlir", print(container));
  PassManager binary(container.getContext());
  GpuModuleToBinaryPassOptions toBinary;
  toBinary.compilationTarget = "isa";
  // libdevice (math functions) comes from the toolkit; name it rather than
  // rely on the environment.
  toBinary.toolkitPath = findCudaToolkit();
  binary.addPass(createGpuModuleToBinaryPass(toBinary));
  if (failed(binary.run(container)))
    return failure();
  for (auto binaryOp : container.getOps<gpu::BinaryOp>())
    for (Attribute object : binaryOp.getObjects())
      return cast<gpu::ObjectAttr>(object).getObject().str();
  return container.emitError() << "no PTX was produced";
}

/// ptxas from PATH or the CUDA toolkit, if installed.
llvm::ErrorOr<std::string> findPtxas() {
  llvm::ErrorOr<std::string> ptxas = llvm::sys::findProgramByName("ptxas");
  if (ptxas)
    return ptxas;
  return llvm::sys::findProgramByName("ptxas", {"/usr/local/cuda/bin"});
}

/// Assembles `ptx` into a cubin for the target with `ptxas`.
FailureOr<std::string> assembleCubin(Location loc, StringRef ptxas,
                                     const std::string &ptx,
                                     const GpuTarget &target) {
  SmallString<128> input, output, log;
  llvm::sys::fs::createTemporaryFile("tfuse-kernels", "ptx", input);
  llvm::sys::fs::createTemporaryFile("tfuse-kernels", "cubin", output);
  llvm::sys::fs::createTemporaryFile("tfuse-ptxas", "log", log);
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(input, ec);
    os << ptx;
  }
  std::string error;
  std::string arch = "-arch=" + target.smArch;
  int rc = llvm::sys::ExecuteAndWait(
      ptxas, {ptxas, "-O3", arch, input.str(), "-o", output.str()},
      std::nullopt, {std::nullopt, std::nullopt, StringRef(log)}, 0, 0, &error);
  std::string cubin;
  if (rc == 0) {
    auto buffer = llvm::MemoryBuffer::getFile(output);
    if (buffer)
      cubin = (*buffer)->getBuffer().str();
  }
  if (rc != 0)
    if (auto text = llvm::MemoryBuffer::getFile(log))
      error += (*text)->getBuffer().trim().str();
  for (StringRef file : {input.str(), output.str(), log.str()})
    llvm::sys::fs::remove(file);
  if (rc != 0)
    return emitError(loc) << "ptxas failed (" << rc << "): " << error;
  return cubin;
}

/// The oldest architecture tfuse's kernels compile for: their warp shuffles
/// (shfl.sync) are selected by the NVPTX backend from sm_70 on (LLVM 22
/// aborts in instruction selection below it).
constexpr unsigned kMinKernelSmNumber = 70;

/// The number of "sm_XX[a|f]" (0 when it has none).
unsigned smNumber(StringRef arch) {
  unsigned number = 0;
  arch.drop_front(3)
      .take_while([](char c) { return c >= '0' && c <= '9'; })
      .getAsInteger(10, number);
  return number;
}

/// The "sm_XX" names `ptxas --help` lists as allowed --gpu-name values,
/// oldest first; empty when that cannot be learnt.
std::vector<std::string> listPtxasArchs(StringRef ptxas) {
  SmallString<128> help;
  if (llvm::sys::fs::createTemporaryFile("tfuse-ptxas-help", "txt", help))
    return {};
  std::vector<std::string> archs;
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(help),
                                          std::nullopt};
  if (llvm::sys::ExecuteAndWait(ptxas, {ptxas, "--help"}, std::nullopt,
                                redirects) == 0)
    if (auto text = llvm::MemoryBuffer::getFile(help)) {
      StringRef rest = (*text)->getBuffer();
      for (size_t at = rest.find("'sm_"); at != StringRef::npos;
           at = rest.find("'sm_")) {
        rest = rest.drop_front(at + 1);
        archs.push_back(
            rest.take_until([](char c) { return c == '\''; }).str());
      }
    }
  llvm::sys::fs::remove(help);
  llvm::sort(archs, [](const std::string &a, const std::string &b) {
    return std::make_pair(smNumber(a), a) < std::make_pair(smNumber(b), b);
  });
  archs.erase(std::unique(archs.begin(), archs.end()), archs.end());
  return archs;
}

/// What code generation adds to the NVPTX backend's check of "sm_arch": the
/// kernels' minimum, and ptxas's list when a cubin will be assembled.
std::string checkKernelSmArch(const std::string &smArch,
                              const llvm::ErrorOr<std::string> &ptxas) {
  if (smNumber(smArch) < kMinKernelSmNumber)
    return "tfuse's kernels need sm_" + std::to_string(kMinKernelSmNumber) +
           " or newer (their warp shuffles, shfl.sync), got \"" + smArch + "\"";
  if (!ptxas)
    return "";
  std::vector<std::string> archs = listPtxasArchs(*ptxas);
  if (archs.empty() || llvm::is_contained(archs, smArch))
    return "";
  return "ptxas (" + *ptxas + ") cannot assemble \"" + smArch +
         "\"; it accepts " + llvm::join(archs, ", ");
}

} // namespace

FailureOr<BundleFiles>
mlir::tfuse::compileBundle(ModuleOp module, const CompileOptions &options) {
  MLIRContext *context = module.getContext();
  // The emitters build ops of every dialect the kernels use.
  context->loadAllAvailableDialects();
  Dumper dump(options.dumpDir);
  dump("00-input.mlir", print(module));
  llvm::ErrorOr<std::string> ptxas = findPtxas();
  FailureOr<std::vector<GpuTarget>> targets = resolveTargets(
      module.getLoc(), {options.target}, [&](const std::string &smArch) {
        return checkKernelSmArch(smArch, ptxas);
      });
  if (failed(targets))
    return failure();
  const GpuTarget &target = targets->front();

  PassManager pm(context);
  pm.addPass(createTFuseDecomposeAttention());
  if (failed(pm.run(module)))
    return failure();
  // The target is loaded once, above: fuse with it directly.
  if (options.fuse)
    fuseModule(module, target);
  dump("01-fused.mlir", print(module));

  func::FuncOp func;
  for (auto candidate : module.getOps<func::FuncOp>())
    if (!candidate.isExternal() &&
        (options.function.empty() ||
         candidate.getSymName() == options.function)) {
      func = candidate;
      break;
    }
  if (!func)
    return module.emitError()
           << "no function "
           << (options.function.empty() ? std::string("with a body")
                                        : "'" + options.function + "'")
           << " to compile";

  BundleFiles files;
  {
    std::string report;
    llvm::raw_string_ostream os(report);
    FailureOr<TrafficReport> analysis = analyzeTraffic(module, {target}, {});
    if (failed(analysis))
      return failure();
    if (llvm::Error error = printJsonReport(*analysis, os))
      return module.emitError() << llvm::toString(std::move(error));
    files["report.json"] = report;
  }

  OpBuilder builder(context);
  OwningOpRef<ModuleOp> container = ModuleOp::create(module.getLoc());
  container.get()->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                           builder.getUnitAttr());
  builder.setInsertionPointToStart(container->getBody());
  auto kernels = gpu::GPUModuleOp::create(builder, module.getLoc(), "kernels");
  std::string cubinName =
      ptxas ? "kernels." + target.smArch + ".cubin" : std::string();
  std::string plan;
  llvm::raw_string_ostream planStream(plan);
  if (failed(buildPlan(func, target, kernels, "kernels.ptx", cubinName,
                       planStream)))
    return failure();
  dump("02-wrapped.mlir", print(module));
  dump("03-kernels.mlir", print(*container));

  FailureOr<std::string> ptx = lowerToPtx(*container, target, dump);
  if (failed(ptx))
    return failure();
  dump("05-kernels.ptx", *ptx);
  files["kernels.ptx"] = *ptx;
  if (ptxas) {
    FailureOr<std::string> cubin =
        assembleCubin(module.getLoc(), *ptxas, *ptx, target);
    if (failed(cubin))
      return failure();
    files[cubinName] = *cubin;
  }
  files["plan.json"] = plan;
  return files;
}
