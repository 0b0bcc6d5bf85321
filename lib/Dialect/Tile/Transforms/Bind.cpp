//===- Bind.cpp - Compile a kernel for fixed scalar parameters ------------===//
#include "tk/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/Error.h"

namespace tk::tile {
#define GEN_PASS_DEF_TILEBIND
#include "tk/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tk::tile

using namespace mlir;
using namespace tk::tile;

namespace {
/// `text` as a value of the scalar `type`, or null.
TypedAttr parseValue(Type type, StringRef text) {
  MLIRContext *ctx = type.getContext();
  if (type.isInteger(1)) {
    if (text == "true" || text == "1")
      return BoolAttr::get(ctx, true);
    if (text == "false" || text == "0")
      return BoolAttr::get(ctx, false);
    return {};
  }
  if (auto floatType = dyn_cast<FloatType>(type)) {
    llvm::APFloat value(floatType.getFloatSemantics());
    auto status =
        value.convertFromString(text, llvm::APFloat::rmNearestTiesToEven);
    if (!status) {
      llvm::consumeError(status.takeError());
      return {};
    }
    // (A value past the type's range would round to an infinity.)
    if (*status & (llvm::APFloat::opInvalidOp | llvm::APFloat::opOverflow))
      return {};
    return FloatAttr::get(type, value);
  }
  auto intType = dyn_cast<IntegerType>(type);
  if (intType && intType.isUnsigned()) {
    // Read unsigned: a negative number must not wrap into a large one.
    uint64_t value = 0;
    if (text.getAsInteger(10, value) ||
        !llvm::isUIntN(intType.getWidth(), value))
      return {};
    return IntegerAttr::get(type, APInt(intType.getWidth(), value));
  }
  int64_t value;
  if (text.getAsInteger(10, value))
    return {};
  if (intType && intType.getWidth() < 64 &&
      !llvm::isIntN(intType.getWidth(), value))
    return {};
  return IntegerAttr::get(type, value);
}

struct BindPass : public tk::tile::impl::TileBindBase<BindPass> {
  using Base::Base;

  LogicalResult addBinding(KernelOp kernel, StringRef entry) {
    auto [position, text] = entry.split('=');
    unsigned index;
    if (text.empty() || position.trim().getAsInteger(10, index))
      return kernel.emitError("tile-bind: expected INDEX=VALUE, got '")
             << entry << "'";
    ArrayRef<Type> types = kernel.getArgumentTypes();
    if (index >= types.size())
      return kernel.emitError("tile-bind: parameter #")
             << index << " does not exist; the kernel has " << types.size();
    Type type = types[index];
    if (isa<GlobalType>(type))
      return kernel.emitError("tile-bind: parameter #")
             << index << " is a global view; only scalars can be bound";
    TypedAttr value = parseValue(type, text.trim());
    if (!value)
      return kernel.emitError("tile-bind: '")
             << text << "' is not a value of parameter #" << index << "'s type "
             << type;
    if (Attribute bound = kernel.getArgAttr(index, kBoundAttr);
        bound && bound != value)
      return kernel.emitError("tile-bind: parameter #")
             << index << " is already bound to " << bound;
    kernel.setArgAttr(index, kBoundAttr, value);
    return success();
  }

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    for (const std::string &entry : params)
      if (failed(addBinding(kernel, entry)))
        return signalPassFailure();
    Block &body = kernel.getBody().front();
    OpBuilder builder = OpBuilder::atBlockBegin(&body);
    for (BlockArgument arg : body.getArguments()) {
      auto value =
          kernel.getArgAttrOfType<TypedAttr>(arg.getArgNumber(), kBoundAttr);
      if (!value || arg.use_empty())
        continue;
      arg.replaceAllUsesWith(
          arith::ConstantOp::create(builder, arg.getLoc(), value));
    }
  }
};
} // namespace
