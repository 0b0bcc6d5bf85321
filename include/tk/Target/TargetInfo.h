//===- TargetInfo.h - What passes need to know about a GPU ------*- C++ -*-===//
//
// A small, data-only description of each target the compiler knows. Passes
// and verifiers consult it instead of testing chip names.
//
//===----------------------------------------------------------------------===//
#ifndef TK_TARGET_TARGETINFO_H
#define TK_TARGET_TARGETINFO_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>

namespace tk {

enum class Vendor { nvidia, amd };

struct MmaShape {
  unsigned m, n, k;
};

struct TargetInfo {
  llvm::StringRef name; // "sm_90a", "gfx942", ...
  Vendor vendor;
  unsigned warpSize; // lanes per warp (wave)
  unsigned maxThreadsPerBlock;
  int64_t sharedMemoryBytes; // the most one block may allocate
  int64_t sharedMemorySlack; // requested beyond that to align the base
  bool hasAsyncCopyEngine;   // TMA bulk tensor copies
  bool hasWarpgroupMma;      // wgmma from shared-memory descriptors
  bool hasRegisterBudgets;   // setmaxnreg
  llvm::ArrayRef<MmaShape> matrixShapes; // MFMA shapes (bf16/f16), AMD only
  unsigned chiplets; // dies blocks are dealt to round-robin (AMD XCDs)
  unsigned maxVgprs; // vector registers per lane (AMD: arch + acc VGPRs)
  unsigned maxSgprs; // scalar registers per wave (AMD)

  unsigned maxWarpgroups() const { return maxThreadsPerBlock / (4 * warpSize); }
  bool hasMatrixShape(unsigned m, unsigned n, unsigned k) const;
};

/// All targets, the default (sm_90a) first.
llvm::ArrayRef<TargetInfo> getTargets();
/// The target named `name`, or null.
const TargetInfo *lookupTarget(llvm::StringRef name);
/// The names of all targets, comma separated, for diagnostics.
std::string getTargetNames();

} // namespace tk

#endif // TK_TARGET_TARGETINFO_H
