//===- SetTarget.cpp - Choose the chip a module is compiled for -----------===//
#include "tk/Dialect/Tile/IR/TileDialect.h"
#include "tk/Dialect/Tile/Transforms/Passes.h"
#include "tk/Target/TargetInfo.h"

#include "mlir/IR/BuiltinOps.h"

namespace tk::tile {
#define GEN_PASS_DEF_TILESETTARGET
#include "tk/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tk::tile

using namespace mlir;

namespace {
struct SetTargetPass : public tk::tile::impl::TileSetTargetBase<SetTargetPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!tk::lookupTarget(chip)) {
      module.emitError("unknown chip '")
          << chip << "'; expected one of " << tk::getTargetNames();
      return signalPassFailure();
    }
    StringRef name = tk::tile::TileDialect::getTargetAttrName();
    if (auto existing = module->getAttrOfType<StringAttr>(name)) {
      if (existing.getValue() != chip) {
        module.emitError("module is written for '")
            << existing.getValue() << "' but is compiled for '" << chip << "'";
        return signalPassFailure();
      }
      return;
    }
    module->setAttr(name, StringAttr::get(&getContext(), chip));
  }
};
} // namespace
