//===- Pipelines.h - Each target's pipeline, with typed options -*- C++ -*-===//
//
// The pass pipelines behind `-tile-to-nvidia` and `-tile-to-amdgpu`, for
// embedders: fill the options (the same names and defaults as the
// pipeline flags, e.g. `options.stages = 3;`), build the pipeline into any
// OpPassManager on a builtin module, run it. With `out` set, the last pass
// writes the artifacts to that folder; without it the pipeline ends at the
// lowered module (`gpu.module @tk_kernels` + `tile.abi`), which
// tk::emitNVIDIA / tk::emitAMDGPU (tk/Target/Emit.h) serialize in memory;
// tk::compile (tk/Compiler.h) does both.
//
//===----------------------------------------------------------------------===//
#ifndef TK_PIPELINES_H
#define TK_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <type_traits>

namespace tk {

/// Where a pipeline option's bad value is reported: llvm::errs() on a
/// command line (tk-opt), or, while an OptionErrors is alive on the thread
/// (tk::compile), into it, so an embedder gets the reason in its
/// diagnostic and nothing on its standard error.
llvm::raw_ostream *optionErrorCapture();

class OptionErrors {
public:
  OptionErrors();
  ~OptionErrors();
  OptionErrors(const OptionErrors &) = delete;
  OptionErrors &operator=(const OptionErrors &) = delete;
  /// What was reported so far ("" when nothing).
  std::string text() const { return captured; }

private:
  std::string captured;
  llvm::raw_string_ostream stream{captured};
  llvm::raw_ostream *outer;
};

/// A parser of bool, int64_t or unsigned option values that behaves as
/// llvm::cl's, but reports a bad value where optionErrorCapture() says
/// (llvm::cl's own parsers always print to llvm::errs()).
template <typename T> struct ReportingParser : llvm::cl::basic_parser<T> {
  ReportingParser(llvm::cl::Option &option)
      : llvm::cl::basic_parser<T>(option), printer(option) {}

  /// A bool option alone (`cubin`) means true, as with llvm::cl.
  llvm::cl::ValueExpected getValueExpectedFlagDefault() const {
    return std::is_same_v<T, bool> ? llvm::cl::ValueOptional
                                   : llvm::cl::ValueRequired;
  }
  llvm::StringRef getValueName() const override {
    return std::is_same_v<T, bool> ? llvm::StringRef()
           : std::is_unsigned_v<T> ? "uint"
                                   : "int";
  }
  /// Printing (--help, the pipeline's textual form) is llvm::cl's.
  operator const llvm::cl::parser<T> &() const { return printer; }

  bool parse(llvm::cl::Option &option, llvm::StringRef name,
             llvm::StringRef arg, T &value) {
    if constexpr (std::is_same_v<T, bool>) {
      if (arg.empty() || arg == "true" || arg == "TRUE" || arg == "True" ||
          arg == "1")
        return value = true, false;
      if (arg == "false" || arg == "FALSE" || arg == "False" || arg == "0")
        return value = false, false;
    } else if (!arg.getAsInteger(0, value)) {
      return false;
    }
    llvm::StringRef what = std::is_same_v<T, bool> ? "true or false"
                           : std::is_unsigned_v<T> ? "a non-negative integer"
                                                   : "an integer";
    if (llvm::raw_ostream *capture = optionErrorCapture()) {
      *capture << "option '" << name << "' takes " << what << ", got '" << arg
               << "'";
      return true;
    }
    return option.error("'" + arg + "' is not " + what, name);
  }

private:
  llvm::cl::parser<T> printer;
};

struct NVIDIAPipelineOptions
    : public mlir::PassPipelineOptions<NVIDIAPipelineOptions> {
  Option<std::string> out{
      *this, "out",
      llvm::cl::desc("Folder to write PTX, cubin and manifest to (none: the "
                     "pipeline stops at the lowered module and writes no "
                     "files)"),
      llvm::cl::init("")};
  ListOption<std::string> bind{
      *this, "bind",
      llvm::cl::desc("tile-bind's params: INDEX=VALUE, compile the kernels "
                     "for these values of scalar parameters")};
  Option<bool, ReportingParser<bool>> cubin{
      *this, "cubin", llvm::cl::desc("Assemble a cubin when ptxas is found"),
      llvm::cl::init(true)};
  Option<int64_t, ReportingParser<int64_t>> stages{
      *this, "stages",
      llvm::cl::desc("tile-pipeline's ring stages for loops without "
                     "tile.stages (0: the most, up to 3, that fit)"),
      llvm::cl::init(0)};
  Option<bool, ReportingParser<bool>> overrideStages{
      *this, "override-stages",
      llvm::cl::desc("A positive `stages` also replaces the loops' "
                     "tile.stages (tile-pipeline's override-stages)"),
      llvm::cl::init(false)};
  Option<bool, ReportingParser<bool>> dynamicTiles{
      *this, "dynamic-tiles",
      llvm::cl::desc("Run tile-dynamic-tiles first: persistent tile loops "
                     "take tiles from a counter as blocks ask"),
      llvm::cl::init(false)};
  Option<bool, ReportingParser<bool>> warpSpecialize{
      *this, "warp-specialize",
      llvm::cl::desc("Run tile-warp-specialize (false keeps pipelined loops "
                     "in every warpgroup)"),
      llvm::cl::init(true)};
  Option<int64_t, ReportingParser<int64_t>> producerRegisters{
      *this, "producer-registers",
      llvm::cl::desc("tile-warp-specialize's producer register budget"),
      llvm::cl::init(40)};
  Option<int64_t, ReportingParser<int64_t>> group{
      *this, "group",
      llvm::cl::desc("tile-warp-specialize's L2 group of tile rows"),
      llvm::cl::init(8)};
  Option<bool, ReportingParser<bool>> fpContract{
      *this, "fp-contract",
      llvm::cl::desc("Let LLVM fuse the tile ops' multiplies and adds into "
                     "fmas (convert-tile-to-nvvm's fp-contract)"),
      llvm::cl::init(true)};
  Option<bool, ReportingParser<bool>> anchorMmaWaits{
      *this, "anchor-mma-waits",
      llvm::cl::desc("Keep each wgmma wait where the program puts it "
                     "(convert-tile-to-nvvm's anchor-mma-waits)"),
      llvm::cl::init(false)};
  Option<unsigned, ReportingParser<unsigned>> waitTimeoutMs{
      *this, "wait-timeout-ms",
      llvm::cl::desc("A wait longer than this many milliseconds records "
                     "where it was and traps (convert-tile-to-nvvm's "
                     "wait-timeout-ms; 0: no limit)"),
      llvm::cl::init(0)};
  Option<bool, ReportingParser<bool>> overlapMma{
      *this, "overlap-mma",
      llvm::cl::desc("Run tile-overlap-mma after tile-warp-specialize (a "
                     "loop's second MMA under the next iteration's first)"),
      llvm::cl::init(true)};
  Option<bool, ReportingParser<bool>> earlyEpilogue{
      *this, "early-epilogue",
      llvm::cl::desc("Run tile-early-epilogue after tile-pingpong (a tile's "
                     "epilogue work that does not read the last MMA's "
                     "result before that MMA's wait)"),
      llvm::cl::init(true)};
  Option<int64_t, ReportingParser<int64_t>> stagger{
      *this, "stagger",
      llvm::cl::desc("tile-warp-specialize's consumer stagger in cycles "
                     "(negative: the kernel's tile.stagger attribute)"),
      llvm::cl::init(-1)};
  Option<std::string> mmaSplit{
      *this, "mma-split",
      llvm::cl::desc("tile-warp-specialize's split of an mma whose rows do "
                     "not split: columns or contraction"),
      llvm::cl::init("columns")};
};

struct AMDPipelineOptions
    : public mlir::PassPipelineOptions<AMDPipelineOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("The AMD chip: gfx942 or gfx950"),
                           llvm::cl::init("gfx942")};
  Option<std::string> out{
      *this, "out",
      llvm::cl::desc("Folder to write ISA, HSACO and manifest to (none: the "
                     "pipeline stops at the lowered module and writes no "
                     "files)"),
      llvm::cl::init("")};
  ListOption<std::string> bind{
      *this, "bind",
      llvm::cl::desc("tile-bind's params: INDEX=VALUE, compile the kernels "
                     "for these values of scalar parameters")};
  Option<std::string> lld{
      *this, "lld",
      llvm::cl::desc("ld.lld for the code object (default: LLVM's, then PATH)"),
      llvm::cl::init("")};
  Option<int64_t, ReportingParser<int64_t>> stages{
      *this, "stages",
      llvm::cl::desc("1 keeps the copies synchronous; 0 (default) splits "
                     "those in loops into register-staged prefetches"),
      llvm::cl::init(0)};
  Option<bool, ReportingParser<bool>> fpContract{
      *this, "fp-contract",
      llvm::cl::desc("Let LLVM fuse the tile ops' multiplies and adds into "
                     "fmas (convert-tile-to-rocdl's fp-contract)"),
      llvm::cl::init(true)};
};

/// The NVIDIA pipeline without its last pass: the module ends lowered, ready
/// for tk::emitNVIDIA.
void buildNVIDIALowering(mlir::OpPassManager &pm,
                         const NVIDIAPipelineOptions &options);

/// The AMD pipeline without its last pass: the module ends lowered, ready
/// for tk::emitAMDGPU.
void buildAMDLowering(mlir::OpPassManager &pm,
                      const AMDPipelineOptions &options);

/// The NVIDIA (sm_90a) pipeline: tile-bind, the scheduling passes
/// (tile-pipeline, tile-warp-specialize, tile-overlap-mma, tile-pingpong,
/// tile-early-epilogue), tile-assign-layouts, convert-tile-to-nvvm, the LLVM
/// conversions and, with `out`, tile-emit-nvidia.
void buildNVIDIAPipeline(mlir::OpPassManager &pm,
                         const NVIDIAPipelineOptions &options);

/// The AMD (gfx942, gfx950) pipeline: tile-set-target, tile-bind,
/// tile-pipeline, tile-assign-layouts, convert-tile-to-rocdl, the LLVM
/// conversions and, with `out`, tile-emit-amdgpu.
void buildAMDPipeline(mlir::OpPassManager &pm,
                      const AMDPipelineOptions &options);

/// Registers `-tile-to-nvidia` and `-tile-to-amdgpu` (tk-opt).
void registerTilePipelines();

} // namespace tk

#endif // TK_PIPELINES_H
