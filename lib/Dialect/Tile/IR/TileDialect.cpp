//===- TileDialect.cpp - The tile dialect ---------------------------------===//
#include "tk/Dialect/Tile/IR/TileDialect.h"
#include "tk/Dialect/Tile/IR/TileOps.h"
#include "tk/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace tk::tile;

#include "tk/Dialect/Tile/IR/TileDialect.cpp.inc"

void TileDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "tk/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
}

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  // The launch ABI of lowered kernels, written by convert-tile-to-nvvm.
  if (attr.getName() == "tile.abi") {
    if (!isa<DictionaryAttr>(attr.getValue()))
      return op->emitError("'tile.abi' must be a dictionary of kernel ABIs");
    return success();
  }
  StringRef name = attr.getName().getValue();
  if (name == kStagesAttr || name == kPipelinedAttr) {
    auto stages = dyn_cast<IntegerAttr>(attr.getValue());
    // tile.stages also sets how many buffers a per-tile copy takes in turn.
    bool copy = name == kStagesAttr && isa<CopyOp>(op);
    // The count is compared as written (an i128 must not be truncated to 64
    // bits first); the passes read it as a signless 64-bit integer and build
    // rings and semaphore arrays of that many.
    bool signless = stages && stages.getType().isSignlessIntOrIndex();
    if ((!isa<scf::ForOp>(op) && !copy) || !stages ||
        (signless && stages.getValue().slt(1)))
      return op->emitError()
             << "'" << name << "' must be a positive integer on an 'scf.for'"
             << (name == kStagesAttr ? " or a 'tile.copy'" : "");
    if (!signless || stages.getValue().sgt(kMaxStages))
      return op->emitError()
             << "'" << name << "' must be a signless integer of at most "
             << kMaxStages << " stages (the largest ring), got " << stages;
    if (copy && !isa<ForeachTileOp>(op->getParentOp()))
      return op->emitError()
             << "'" << name << "' on a 'tile.copy' sets the buffers of a "
             << "per-tile copy (directly in a 'tile.foreach_tile'); a copy "
             << "in a loop takes the loop's stages";
    return success();
  }
  if (name == kSplitAttr) {
    auto how = dyn_cast<StringAttr>(attr.getValue());
    if (!isa<MmaOp, MmaAsyncOp>(op) || !how ||
        (how.getValue() != "columns" && how.getValue() != "contraction"))
      return op->emitError()
             << "'" << name << "' must be \"columns\" or \"contraction\" "
             << "on a 'tile.mma' or 'tile.mma_async'";
    return success();
  }
  if (name == kUniformWarpgroupIdAttr) {
    if (!isa<KernelOp>(op) || !isa<BoolAttr>(attr.getValue()))
      return op->emitError()
             << "'" << name << "' must be a boolean on a 'tile.kernel'";
    return success();
  }
  if (name == kStaggerAttr) {
    auto cycles = dyn_cast<IntegerAttr>(attr.getValue());
    // Compared as written: an i128 must not be truncated to 64 bits first.
    if (!isa<KernelOp>(op) || !cycles ||
        !cycles.getType().isSignlessInteger() || cycles.getValue().slt(0) ||
        cycles.getValue().sgt(kMaxStaggerCycles))
      return op->emitError()
             << "'" << name << "' must be an integer in [0, "
             << kMaxStaggerCycles << "] (cycles) on a 'tile.kernel'";
    return success();
  }
  if (name == kPingpongAttr) {
    if (!isa<KernelOp>(op) || !isa<UnitAttr>(attr.getValue()))
      return op->emitError()
             << "'" << name << "' must be a unit attribute on a 'tile.kernel'";
    return success();
  }
  if (name == kInterleaveAttr) {
    if (!isa<scf::ForOp>(op) || !isa<UnitAttr>(attr.getValue()))
      return op->emitError()
             << "'" << name << "' must be a unit attribute on an 'scf.for'";
    return success();
  }
  if (name == kPrologueAttr || name == kRefillAttr || name == kTileCopyAttr) {
    if (!isa<scf::IfOp>(op) || !isa<UnitAttr>(attr.getValue()))
      return op->emitError()
             << "'" << name << "' must be a unit attribute on an 'scf.if'";
    return success();
  }
  if (attr.getName() != getTargetAttrName())
    return op->emitError() << "unknown tile dialect attribute '"
                           << attr.getName().getValue() << "'";
  auto target = dyn_cast<StringAttr>(attr.getValue());
  if (!target)
    return op->emitError() << "'" << getTargetAttrName()
                           << "' must be a string naming the target";
  if (!tk::lookupTarget(target.getValue()))
    return op->emitError() << "unknown target '" << target.getValue()
                           << "'; known targets: " << tk::getTargetNames();
  return success();
}

LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  if (attr.getName() != kBoundAttr)
    return op->emitError() << "unknown tile dialect parameter attribute '"
                           << attr.getName().getValue() << "'";
  auto kernel = dyn_cast<KernelOp>(op);
  if (!kernel)
    return op->emitError() << "'" << kBoundAttr
                           << "' must be on a parameter of a 'tile.kernel'";
  Type type = kernel.getArgumentTypes()[argIndex];
  if (isa<GlobalType>(type))
    return op->emitError() << "'" << kBoundAttr << "' binds a scalar; "
                           << "parameter #" << argIndex << " is " << type;
  auto value = dyn_cast<TypedAttr>(attr.getValue());
  if (!isa<IntegerAttr, FloatAttr>(attr.getValue()) || value.getType() != type)
    return op->emitError() << "'" << kBoundAttr << "' on parameter #"
                           << argIndex << " must be a value of its type "
                           << type << ", got " << attr.getValue();
  return success();
}

Operation *TileDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}
