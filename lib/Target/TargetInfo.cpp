//===- TargetInfo.cpp - The targets tk-mlir knows -------------------------===//
#include "tk/Target/TargetInfo.h"

#include "llvm/ADT/STLExtras.h"
#include <string>

using namespace tk;

static const MmaShape kCdna3Shapes[] = {{32, 32, 8}, {16, 16, 16}};
static const MmaShape kCdna4Shapes[] = {
    {32, 32, 8}, {16, 16, 16}, {32, 32, 16}, {16, 16, 32}};

// sm_90a: 227 KiB of shared memory per block (228 KiB per SM less 1 KiB the
// hardware reserves). gfx942: 64 KiB LDS per workgroup; gfx950: 160 KiB.
static const TargetInfo kTargets[] = {
    {"sm_90a", Vendor::nvidia, 32, 1024, 232448, true, true, true, {}},
    {"gfx942", Vendor::amd, 64, 1024, 65536, false, false, false, kCdna3Shapes},
    {"gfx950", Vendor::amd, 64, 1024, 163840, false, false, false,
     kCdna4Shapes},
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
