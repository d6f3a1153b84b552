//===- CompileBundle.cpp - tfuse-compile's pipeline -------------*- C++ -*-===//
//
// The stages of tfuse-compile, each optionally dumped: decomposed and fused
// tfuse IR, the kernels in upstream dialects, the NVVM module, PTX; then the
// bundle's files, written as one transaction with plan.json last.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Pipelines/CompileBundle.h"
#include "tfuse/Analysis/TargetLoading.h"
#include "tfuse/Analysis/TrafficAnalysis.h"
#include "tfuse/Conversion/PlanBuilder.h"
#include "tfuse/InitAll.h"
#include "tfuse/Support/OutputFile.h"
#include "tfuse/Target/KernelShapes.h"
#include "tfuse/Transforms/FusionPlanner.h"
#include "tfuse/Transforms/Passes.h"

#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Transforms/DialectConversion.h"
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

/// Writes the stages into --dump-dir, each file atomically and never over a
/// file the compile reads.
class Dumper {
public:
  Dumper(StringRef dir, Location loc) : dir(dir.str()), loc(loc) {}
  LogicalResult operator()(StringRef name, const std::string &text) {
    if (dir.empty())
      return success();
    if (std::error_code ec = llvm::sys::fs::create_directories(dir))
      return emitError(loc) << "cannot create the dump directory '" << dir
                            << "': " << ec.message();
    SmallString<256> path(dir);
    llvm::sys::path::append(path, name);
    auto file = AtomicOutputFile::create(path);
    if (!file)
      return emitError(loc) << llvm::toString(file.takeError());
    (*file)->os() << text;
    if (llvm::Error err = (*file)->commit())
      return emitError(loc) << llvm::toString(std::move(err));
    return success();
  }

private:
  std::string dir;
  Location loc;
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

/// Whether `func` has a buffer more elements than 32-bit indices address
/// (tfuse/Target/KernelShapes.h).
bool hasWideBuffer(gpu::GPUFuncOp func) {
  return llvm::any_of(func.getArgumentTypes(), [](Type type) {
    auto memref = dyn_cast<MemRefType>(type);
    return memref && mlir::tfuse::needsWideIndex(memref.getNumElements());
  });
}

/// Lowers the nvgpu ops of `kernels` (the attention kernel's cp.async
/// copies) to NVVM with `indexBitwidth`-bit indices, as the rest of the
/// kernels are: upstream's convert-nvgpu-to-nvvm has no index width and
/// would leave 64-bit memref descriptors in 32-bit kernels.
LogicalResult lowerNVGPU(gpu::GPUModuleOp kernels, unsigned indexBitwidth) {
  MLIRContext *context = kernels.getContext();
  LowerToLLVMOptions options(context);
  options.overrideIndexBitwidth(indexBitwidth);
  options.useBarePtrCallConv = true;
  LLVMTypeConverter converter(context, options);
  populateGpuMemorySpaceAttributeConversions(
      converter, [](gpu::AddressSpace space) -> unsigned {
        switch (space) {
        case gpu::AddressSpace::Global:
          return static_cast<unsigned>(NVVM::NVVMMemorySpace::Global);
        case gpu::AddressSpace::Workgroup:
          return static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared);
        case gpu::AddressSpace::Private:
          return 0;
        }
        return 0;
      });
  // Async tokens have no NVVM value; the copies' patterns drop them.
  converter.addConversion([context](nvgpu::DeviceAsyncTokenType) -> Type {
    return IntegerType::get(context, 32);
  });
  RewritePatternSet patterns(context);
  populateNVGPUToNVVMConversionPatterns(converter, patterns);
  ConversionTarget target(*context);
  target.addIllegalDialect<nvgpu::NVGPUDialect>();
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  return applyPartialConversion(kernels, target, std::move(patterns));
}

/// Lowers the kernels of `kernels` to NVVM with `indexBitwidth`-bit indices.
LogicalResult lowerToNVVM(gpu::GPUModuleOp kernels, unsigned indexBitwidth) {
  if (failed(lowerNVGPU(kernels, indexBitwidth)))
    return failure();
  PassManager pm(kernels.getContext(), gpu::GPUModuleOp::getOperationName());
  pm.addPass(createSCFToControlFlowPass());
  ConvertGpuOpsToNVVMOpsOptions toNVVM;
  toNVVM.indexBitwidth = indexBitwidth;
  toNVVM.useBarePtrCallConv = true;
  pm.addPass(createConvertGpuOpsToNVVMOps(toNVVM));
  if (failed(pm.run(kernels)))
    return failure();
  // gpu.dynamic_shared_memory lowers to an internal zero-sized shared
  // global, which NVPTX prints as a 1-byte static variable: the dynamic
  // window would then start past it and the last tile end past the launch's
  // bytes. External linkage makes it `.extern .shared ... []`, the dynamic
  // window itself.
  kernels.walk([](LLVM::GlobalOp global) {
    auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
    if (global.getAddrSpace() ==
            static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared) &&
        array && array.getNumElements() == 0)
      global.setLinkage(LLVM::Linkage::External);
  });
  return success();
}

/// The PTX text of the single object of the gpu.binary left by
/// gpu-module-to-binary{format=isa}.
///
/// Kernels index in 32 bits, much cheaper than 64-bit division and
/// multiplication, except those with a buffer of more than 2^31 - 1
/// elements: they are lowered apart, with 64-bit indices, and their LLVM
/// functions then join the others in the one module (after lowering, no
/// index type is left to disagree), so the bundle keeps one PTX file.
FailureOr<std::string> lowerToPtx(ModuleOp container, gpu::GPUModuleOp kernels,
                                  const GpuTarget &target, Dumper &dump) {
  OpBuilder b(container.getContext());
  gpu::GPUModuleOp wide;
  for (auto func :
       llvm::make_early_inc_range(kernels.getOps<gpu::GPUFuncOp>())) {
    if (!hasWideBuffer(func))
      continue;
    if (!wide) {
      b.setInsertionPointAfter(kernels);
      wide = gpu::GPUModuleOp::create(b, kernels.getLoc(),
                                      kernels.getName().str() + "_wide");
    }
    func->moveBefore(wide.getBody(), wide.getBody()->end());
  }
  PassManager attach(container.getContext());
  GpuNVVMAttachTargetOptions options;
  options.chip = target.smArch;
  options.optLevel = 3;
  attach.addPass(createGpuNVVMAttachTarget(options));
  if (failed(attach.run(container)) || failed(lowerToNVVM(kernels, 32)) ||
      (wide && failed(lowerToNVVM(wide, 64))))
    return failure();
  if (wide) {
    // Declarations both modules make (libdevice functions, the dynamic
    // shared window) stay once.
    SymbolTable symbols(kernels);
    for (Operation &op : llvm::make_early_inc_range(*wide.getBody())) {
      auto symbol = dyn_cast<SymbolOpInterface>(op);
      if (symbol && symbols.lookup(symbol.getName())) {
        auto function = dyn_cast<LLVM::LLVMFuncOp>(op);
        auto global = dyn_cast<LLVM::GlobalOp>(op);
        bool declaration =
            (function && function.isExternal()) ||
            (global && global.getLinkage() == LLVM::Linkage::External &&
             !global.getValueOrNull());
        if (!declaration)
          return op.emitError() << "internal error: symbol " << symbol.getName()
                                << " defined by 32- and 64-bit kernels";
        continue;
      }
      op.moveBefore(kernels.getBody(), kernels.getBody()->end());
    }
    wide.erase();
  }
  PassManager pm(container.getContext());
  pm.addPass(createReconcileUnrealizedCastsPass());
  if (failed(pm.run(container)) ||
      failed(dump("04-nvvm.mlir", print(container))))
    return failure();
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
  auto removeTemporaries = [&] {
    for (StringRef file : {input.str(), output.str(), log.str()})
      if (!file.empty())
        llvm::sys::fs::remove(file);
  };
  std::error_code ec;
  if ((ec =
           llvm::sys::fs::createTemporaryFile("tfuse-kernels", "ptx", input)) ||
      (ec = llvm::sys::fs::createTemporaryFile("tfuse-kernels", "cubin",
                                               output)) ||
      (ec = llvm::sys::fs::createTemporaryFile("tfuse-ptxas", "log", log))) {
    removeTemporaries();
    return emitError(loc) << "cannot create a temporary file for ptxas: "
                          << ec.message();
  }
  {
    llvm::raw_fd_ostream os(input, ec);
    os << ptx;
    os.close();
    if (!ec && os.has_error()) {
      ec = os.error();
      os.clear_error();
    }
    if (ec) {
      removeTemporaries();
      return emitError(loc) << "cannot write the PTX for ptxas to '" << input
                            << "': " << ec.message();
    }
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
  removeTemporaries();
  if (rc != 0)
    return emitError(loc) << "ptxas failed (" << rc << "): " << error;
  // A ptxas that exits 0 without writing is not one to trust.
  if (cubin.empty())
    return emitError(loc) << "ptxas '" << ptxas
                          << "' exited 0 but wrote no cubin";
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

/// The function `name` names, or the first with a body when it is empty.
func::FuncOp findFunction(ModuleOp module, StringRef name) {
  for (auto candidate : module.getOps<func::FuncOp>())
    if (!candidate.isExternal() &&
        (name.empty() || candidate.getSymName() == name))
      return candidate;
  return nullptr;
}

/// Fails, at the first collective of `func`, when it has one: the bundle
/// runs on one GPU and nothing emits the communication yet.
LogicalResult refuseCollectives(func::FuncOp func) {
  WalkResult walk =
      func.walk(
          [](CostOpInterface op) {
            if (op.getOpClass() != OpClass::Collective)
              return WalkResult::advance();
            op->emitOpError()
                << "collectives are not emitted yet; see docs/multi-gpu.md";
            return WalkResult::interrupt();
          });
  return failure(walk.wasInterrupted());
}

InFlightDiagnostic noFunction(ModuleOp module, StringRef name) {
  return module.emitError()
         << "no function "
         << (name.empty() ? std::string("with a body") : "'" + name.str() + "'")
         << " to compile";
}

} // namespace

FailureOr<BundleFiles> mlir::tfuse::compileBundle(ModuleOp module,
                                                  const CompileOptions &options,
                                                  std::string *compiled) {
  MLIRContext *context = module.getContext();
  // The emitters build ops of every dialect the kernels use.
  context->loadAllAvailableDialects();
  Dumper dump(options.dumpDir, module.getLoc());
  if (failed(dump("00-input.mlir", print(module))))
    return failure();
  llvm::ErrorOr<std::string> ptxas = findPtxas();
  FailureOr<std::vector<GpuTarget>> targets = resolveTargets(
      module.getLoc(), {options.target}, [&](const std::string &smArch) {
        return checkKernelSmArch(smArch, ptxas);
      });
  if (failed(targets))
    return failure();
  const GpuTarget &target = targets->front();

  std::string functionName = options.function;
  if (func::FuncOp source = findFunction(module, options.function);
      source && failed(refuseCollectives(source)))
    return failure();
  if (options.train) {
    // Differentiate before attention is decomposed or anything fused: the
    // step's forward is the user's graph, and fusion then sees forward and
    // backward together.
    func::FuncOp forward = findFunction(module, options.function);
    if (!forward)
      return noFunction(module, options.function);
    if (forward->hasAttr(getTrainingStepAttrName()))
      return forward.emitOpError()
             << "is already a training step; --train takes a forward function";
    FailureOr<func::FuncOp> step = buildTrainingStep(forward, *options.train);
    if (failed(step))
      return failure();
    functionName = step->getSymName().str();
  }

  PassManager pm(context);
  TFuseDecomposeAttentionOptions decompose;
  decompose.keepFused = options.fusedAttention;
  pm.addPass(createTFuseDecomposeAttention(decompose));
  if (options.tf32)
    pm.addPass(createTFuseAllowTf32());
  if (failed(pm.run(module)))
    return failure();
  // The target is loaded once, above: fuse with it directly.
  if (options.fuse && failed(fuseModule(module, target)))
    return failure();
  if (failed(dump("01-fused.mlir", print(module))))
    return failure();

  func::FuncOp func = findFunction(module, functionName);
  if (!func)
    return noFunction(module, functionName);
  if (compiled)
    *compiled = func.getSymName().str();

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
  FailureOr<bundle::Plan> plan =
      buildPlan(func, target, kernels, "kernels.ptx", cubinName);
  if (failed(plan) || failed(dump("02-wrapped.mlir", print(module))) ||
      failed(dump("03-kernels.mlir", print(*container))))
    return failure();

  FailureOr<std::string> ptx = lowerToPtx(*container, kernels, target, dump);
  if (failed(ptx) || failed(dump("05-kernels.ptx", *ptx)))
    return failure();
  files["kernels.ptx"] = *ptx;
  plan->ptxHash = bundle::contentHash(*ptx);
  if (ptxas) {
    FailureOr<std::string> cubin =
        assembleCubin(module.getLoc(), *ptxas, *ptx, target);
    if (failed(cubin))
      return failure();
    files[cubinName] = *cubin;
    plan->cubinHash = bundle::contentHash(*cubin);
  }
  files["plan.json"] = bundle::formatPlan(*plan);
  return files;
}

llvm::Error mlir::tfuse::writeBundle(StringRef dir, const BundleFiles &files) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return llvm::createStringError(ec, "cannot create '" + dir +
                                           "': " + ec.message());
  // plan.json last: it is the commit record. A failure before it leaves the
  // old plan.json, whose hashes no longer match the new kernels, so
  // tfuse-run refuses the torn bundle rather than run a mixed one.
  std::vector<std::pair<std::string, std::string>> ordered;
  for (const auto &[name, contents] : files)
    if (name != "plan.json")
      ordered.emplace_back(name, contents);
  auto plan = files.find("plan.json");
  if (plan != files.end())
    ordered.emplace_back(plan->first, plan->second);
  return writeFilesAtomically(dir, ordered);
}
