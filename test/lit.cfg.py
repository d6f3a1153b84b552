# -*- Python -*-
# lit configuration of the tfuse suite.

import os
import sys

import lit.formats

# Run from the source tree (`lit -v test/Foo/bar.mlir`), lit finds this file
# without the build's site configuration: load the site configuration of the
# build directory (TFUSE_BUILD_DIR, else ./build next to test/), which sets
# the paths and loads this file again.
if not hasattr(config, "tfuse_obj_root"):
    source_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    build_dir = os.environ.get("TFUSE_BUILD_DIR",
                               os.path.join(source_root, "build"))
    site = os.path.join(build_dir, "test", "lit.site.cfg.py")
    if not os.path.exists(site):
        lit_config.fatal(
            "no build found at %s: build tfuse first (scripts/test.sh), or set "
            "TFUSE_BUILD_DIR to its build directory" % build_dir)
    lit_config.load_config(config, site)
    # The build's configuration has now run this file with its paths set.
else:
    from lit.llvm import llvm_config
    from lit.llvm.subst import ToolSubst

    config.name = "TFUSE"
    config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
    config.suffixes = [".mlir", ".test"]
    config.test_source_root = os.path.dirname(__file__)
    config.test_exec_root = os.path.join(config.tfuse_obj_root, "test")
    # unit/ is GoogleTest's; fuzz/ holds libFuzzer targets and their corpora.
    config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py",
                       "lit.site.cfg.py", "unit", "fuzz"]

    # Upstream MLIR's FileCheck defaults: variables are local to a CHECK-LABEL.
    config.environment["FILECHECK_OPTS"] = (
        "-enable-var-scope --allow-unused-prefixes=false")

    config.substitutions.append(("%python", sys.executable))
    config.substitutions.append(("%PATH%", config.environment["PATH"]))
    config.substitutions.append(("%tfuse_src", config.tfuse_src_root))
    config.substitutions.append(
        ("%examples", os.path.join(config.tfuse_src_root, "examples")))

    llvm_config.use_default_substitutions()
    # The sanitized build (scripts/test.sh --sanitize) runs its tools under
    # these; lit passes ASAN_OPTIONS and UBSAN_OPTIONS itself.
    llvm_config.with_system_environment(["LSAN_OPTIONS"])
    llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

    tool_dirs = [os.path.join(config.tfuse_obj_root, "bin"), config.llvm_tools_dir]
    llvm_config.add_tool_substitutions(
        ["tfuse-opt", "tfuse-compile", "tfuse-import", "tfuse-predict"], tool_dirs)
    # tfuse-run exists only where the CUDA toolkit was found; tests of what it
    # checks before opening a device (no GPU needed) require the feature.
    llvm_config.add_tool_substitutions(
        [ToolSubst("tfuse-run", unresolved="ignore")], tool_dirs)
    if os.path.exists(os.path.join(config.tfuse_obj_root, "bin", "tfuse-run")):
        config.available_features.add("tfuse-run")

    # GPU tests run only where a CUDA GPU answers (the device machine, not CI).
    if config.tfuse_has_cuda_gpu:
        config.available_features.add("cuda-gpu")

    # TFUSE_VERIFY_ROUNDTRIP=1 makes every tfuse-opt run check that its output
    # re-parses to the same IR (as CIRCT does in CI).
    if os.environ.get("TFUSE_VERIFY_ROUNDTRIP") == "1":
        config.substitutions.insert(0, ("tfuse-opt", "tfuse-opt --verify-roundtrip"))
