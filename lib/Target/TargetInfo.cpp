//===- TargetInfo.cpp - The targets tk-mlir knows -------------------------===//
#include "tk/Target/TargetInfo.h"

#include "llvm/ADT/STLExtras.h"
#include <string>

using namespace tk;

static const MmaShape kCdna3Shapes[] = {{32, 32, 8}, {16, 16, 16}};
// Preferred first: gfx950's doubled-k forms do twice the work per
// instruction.
static const MmaShape kCdna4Shapes[] = {
    {32, 32, 16}, {16, 16, 32}, {32, 32, 8}, {16, 16, 16}};

// sm_90a: 227 KiB of shared memory per block (228 KiB per SM less 1 KiB the
// hardware reserves), less the 1 KiB slack the manifest adds so the kernel
// can align its dynamic base to 1024 bytes (AMD places its dynamic LDS symbol
// aligned: no slack). gfx942 (MI300X): 64 KiB LDS per workgroup, 8 XCDs;
// gfx950 (MI355X): 160 KiB, 8 XCDs. Both: 512 VGPRs per lane (256
// architectural + 256 accumulation) and 102 SGPRs per wave for a kernel.
static const TargetInfo kTargets[] = {
    {"sm_90a",
     Vendor::nvidia,
     32,
     1024,
     232448 - 1024,
     1024,
     true,
     true,
     true,
     {},
     1,
     255,
     0},
    {"gfx942", Vendor::amd, 64, 1024, 65536, 0, false, false, false,
     kCdna3Shapes, 8, 512, 102},
    {"gfx950", Vendor::amd, 64, 1024, 163840, 0, false, false, false,
     kCdna4Shapes, 8, 512, 102},
};

bool TargetInfo::hasMatrixShape(unsigned m, unsigned n, unsigned k) const {
  return llvm::any_of(matrixShapes, [&](const MmaShape &shape) {
    return shape.m == m && shape.n == n && shape.k == k;
  });
}

llvm::ArrayRef<TargetInfo> tk::getTargets() { return kTargets; }

const TargetInfo *tk::lookupTarget(llvm::StringRef name) {
  for (const TargetInfo &target : kTargets)
    if (target.name == name)
      return &target;
  return nullptr;
}

std::string tk::getTargetNames() {
  std::string names;
  for (const TargetInfo &target : kTargets) {
    if (!names.empty())
      names += ", ";
    names += target.name.str();
  }
  return names;
}
