//===- PrintLayouts.cpp - Report register layouts as remarks --------------===//
#include "tk/Dialect/Tile/Transforms/Passes.h"

namespace tk::tile {
#define GEN_PASS_DEF_TILEPRINTLAYOUTS
#include "tk/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tk::tile

using namespace mlir;
using namespace tk::tile;

namespace {
struct PrintLayoutsPass
    : public tk::tile::impl::TilePrintLayoutsBase<PrintLayoutsPass> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    kernel.walk([&](Operation *op) {
      for (Value result : op->getResults())
        report(op, result, kernel.getNumWarps());
    });
  }

  static void printSlot(llvm::raw_ostream &os, const FragmentMap &map,
                        int64_t row, int64_t col) {
    os << "(" << row;
    if (!map.isVector())
      os << "," << col;
    os << ")";
    if (std::optional<FragmentSlot> slot = map.locate(row, col))
      os << " at reg " << slot->reg << " lane " << slot->lane << " warp "
         << slot->warp;
    else
      os << " nowhere";
  }

  static void report(Operation *op, Value value, unsigned kernelWarps) {
    auto type = dyn_cast<RegisterType>(value.getType());
    if (!type || !type.getLayout())
      return;
    unsigned warps = getScopeWarps(type.getScope());
    if (type.getScope() == Scope::block)
      warps = kernelWarps;
    FragmentMap map;
    std::string why;
    if (failed(getFragmentMap(type, warps, map, why))) {
      op->emitRemark() << "no fragment map: " << why;
      return;
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    os << map << "; ";
    std::string incomplete;
    if (map.isComplete(incomplete))
      os << "complete, " << map.replication() << " cop"
         << (map.replication() == 1 ? "y" : "ies");
    else
      os << "INCOMPLETE: " << incomplete;
    os << "; ";
    printSlot(os, map, 0, 0);
    os << ", ";
    printSlot(os, map, map.getRows() - 1, map.getCols() - 1);
    op->emitRemark() << text;
  }
};
} // namespace
