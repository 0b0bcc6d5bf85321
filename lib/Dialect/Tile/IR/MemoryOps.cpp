//===- MemoryOps.cpp - Loads, stores and shared buffers -------------------===//
#include "tk/Dialect/Tile/IR/TileOps.h"
#include "tk/Target/TargetInfo.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace tk::tile;

//===----------------------------------------------------------------------===//
// Shared buffers
//===----------------------------------------------------------------------===//

LogicalResult AllocOp::verify() {
  if (!isa_and_nonnull<KernelOp>((*this)->getParentOp()))
    return emitOpError("must be directly in a 'tile.kernel' body: shared "
                       "memory lives for the whole kernel");
  return success();
}

LogicalResult
SlotOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                         ValueRange operands, DictionaryAttr, OpaqueProperties,
                         RegionRange,
                         SmallVectorImpl<Type> &inferredReturnTypes) {
  Type ring = operands[0].getType();
  if (auto tile = dyn_cast<SharedTileType>(ring); tile && tile.isRing()) {
    inferredReturnTypes.push_back(
        SharedTileType::get(context, tile.getShape().drop_front(),
                            tile.getElementType(), tile.getSwizzle()));
    return success();
  }
  if (auto vec = dyn_cast<SharedVecType>(ring); vec && vec.isRing()) {
    inferredReturnTypes.push_back(SharedVecType::get(
        context, vec.getShape().drop_front(), vec.getElementType()));
    return success();
  }
  if (auto sem = dyn_cast<SemType>(ring); sem && sem.getCount() > 1) {
    inferredReturnTypes.push_back(SemType::get(context, 1));
    return success();
  }
  return emitOptionalError(location, "'tile.slot' operand ", ring,
                           " is not a ring: expected a rank-3 shared tile, a "
                           "rank-2 shared vector or a semaphore array");
}

LogicalResult SubtileOp::verify() {
  SharedTileType source = getSource().getType(), result = getResult().getType();
  if (source.isRing())
    return emitOpError("source must be a single shared tile, not a ring; take "
                       "a 'tile.slot' first");
  if (result.isRing())
    return emitOpError("result must be a single shared tile, not a ring");
  if (source.getElementType() != result.getElementType())
    return emitOpError("element type mismatch: source has ")
           << source.getElementType() << ", result " << result.getElementType();
  if (source.getSwizzle() != result.getSwizzle())
    return emitOpError("a subtile keeps the source's swizzle");
  if (source.getRows() % result.getRows() != 0 ||
      source.getCols() % result.getCols() != 0)
    return emitOpError("result shape ")
           << result.getRows() << "x" << result.getCols()
           << " does not divide source shape " << source.getRows() << "x"
           << source.getCols();
  return success();
}

//===----------------------------------------------------------------------===//
// Transfers
//===----------------------------------------------------------------------===//

/// Rank, shape and element type of a memory operand.
namespace {
struct MemoryShape {
  ArrayRef<int64_t> shape; // without a ring dimension
  Type elementType;
  bool isRing = false;
  bool isGlobal = false;
  bool isVector = false; // shared vector
};
} // namespace

static MemoryShape getMemoryShape(Type type) {
  if (auto tile = dyn_cast<SharedTileType>(type))
    return {tile.getShape().take_back(2), tile.getElementType(), tile.isRing()};
  if (auto vec = dyn_cast<SharedVecType>(type))
    return {vec.getShape().take_back(1), vec.getElementType(), vec.isRing(),
            false, true};
  auto view = cast<GlobalType>(type);
  return {view.getShape(), view.getElementType(), false, true};
}

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s;
  for (int64_t dim : shape)
    s += (s.empty() ? "" : "x") + std::to_string(dim);
  return s;
}

/// Checks that `value` (register or shared buffer, rank 1 or 2) moves to or
/// from `memory` at `coords`. `what` names the value's operand.
static LogicalResult verifyTransfer(Operation *op, StringRef what,
                                    ArrayRef<int64_t> valueShape,
                                    Type valueElement, bool valueIsRing,
                                    Type memoryType, ValueRange coords) {
  MemoryShape memory = getMemoryShape(memoryType);
  auto view = dyn_cast<GlobalType>(memoryType);
  if (view && view.getFragments() && !isa<StoreOp, StoreAsyncOp, LoadOp>(op))
    return op->emitOpError("a global view in fragment order is written with "
                           "'tile.store' and read with 'tile.load' of a "
                           "register tile, not copied");
  if (valueIsRing || memory.isRing)
    return op->emitOpError("operates on one buffer, not a ring; take a "
                           "'tile.slot' first");
  if (valueElement != memory.elementType)
    return op->emitOpError("element type mismatch: ")
           << what << " has " << valueElement << ", memory has "
           << memory.elementType << "; use 'tile.cast' to convert";
  if (!memory.isGlobal) {
    if (!coords.empty())
      return op->emitOpError("takes no coordinates for shared memory");
    if (valueShape != memory.shape)
      return op->emitOpError()
             << what << " shape " << shapeString(valueShape)
             << " does not match shared shape " << shapeString(memory.shape);
    return success();
  }
  if (coords.size() != memory.shape.size())
    return op->emitOpError("expected ")
           << memory.shape.size() << " coordinates for a rank-"
           << memory.shape.size() << " global view, got " << coords.size();
  if (valueShape.size() > memory.shape.size())
    return op->emitOpError("a rank-")
           << valueShape.size() << " " << what
           << " needs a global view of at least that rank";
  return success();
}

static LogicalResult verifyRegisterTransfer(Operation *op, Type regType,
                                            Type memoryType,
                                            ValueRange coords) {
  auto reg = cast<RegisterType>(regType);
  if (isa<SharedTileType>(memoryType) && !isa<RegTileType>(regType))
    return op->emitOpError("shared tiles pair with register tiles, not ")
           << regType;
  if (isa<SharedVecType>(memoryType) && !isa<RegVecType>(regType) &&
      !isa<StoreOp>(op))
    return op->emitOpError("shared vectors pair with register vectors, not ")
           << regType;
  return verifyTransfer(op, "register value", reg.getShape(),
                        reg.getElementType(), false, memoryType, coords);
}

/// Splits a shared buffer type into shape, element type and ring flag.
static std::tuple<ArrayRef<int64_t>, Type, bool> sharedBuffer(Type type) {
  MemoryShape shared = getMemoryShape(type);
  return {shared.shape, shared.elementType, shared.isRing};
}

/// TMA boxes span at most 256 elements per dimension, and their rows (the
/// innermost dimension) are a multiple of 16 bytes.
static LogicalResult verifyAsyncBox(Operation *op, ArrayRef<int64_t> shape,
                                    Type element) {
  const tk::TargetInfo &target = getTargetInfo(op);
  if (!target.hasAsyncCopyEngine)
    return success();
  for (int64_t dim : shape)
    if (dim > 256)
      return op->emitOpError("async copies move boxes of at most 256 elements "
                             "per dimension on ")
             << target.name << "; the buffer is " << shapeString(shape);
  int64_t rowBytes = shape.back() * element.getIntOrFloatBitWidth() / 8;
  if (rowBytes % 16)
    return op->emitOpError("async copies move boxes whose rows are a "
                           "multiple of 16 bytes on ")
           << target.name << "; the buffer's rows are " << rowBytes
           << " bytes (" << shapeString(shape) << " of " << element << ")";
  return success();
}

LogicalResult LoadAsyncOp::verify() {
  if (failed(verifyDeviceOperand(*this, getSrc().getType(), getDevice())))
    return failure();
  auto [shape, element, isRing] = sharedBuffer(getDst().getType());
  if (failed(verifyTransfer(*this, "destination", shape, element, isRing,
                            getSrc().getType(), getCoords())))
    return failure();
  if (getMulticast()) {
    if (failed(verifyInCluster(*this, "a multicast load")))
      return failure();
    int64_t blocks = clusterBlocks(*this);
    int64_t rows = shape.size() >= 2 ? shape[shape.size() - 2] : 1;
    auto tile = dyn_cast<SharedTileType>(getDst().getType());
    if (!tile || !tile.getSwizzle() || !tile.getSwizzle().getBytes() ||
        rows % (8 * blocks))
      return emitOpError("a multicast load splits the tile's rows over the ")
             << blocks << " blocks of the cluster in whole 8-row swizzle "
             << "atoms: needs a swizzled shared tile with a multiple of "
             << 8 * blocks << " rows, got " << getDst().getType();
    SmallVector<int64_t> slice(shape);
    slice[slice.size() - 2] = rows / blocks;
    return verifyAsyncBox(*this, slice, element);
  }
  return verifyAsyncBox(*this, shape, element);
}

LogicalResult CopyOp::verify() {
  if (failed(verifyDeviceOperand(*this, getSrc().getType(), getDevice())))
    return failure();
  auto [shape, element, isRing] = sharedBuffer(getDst().getType());
  if (failed(verifyTransfer(*this, "destination", shape, element, isRing,
                            getSrc().getType(), getCoords())))
    return failure();
  return verifyAsyncBox(*this, shape, element);
}

/// Why a register tile cannot be written in fragment order (to a shared
/// vector or a global view in fragment order) or read from a global view in
/// that order, or "".
static std::string checkFragmentOrder(RegTileType tile) {
  if (!tile.getElementType().isF32())
    return "needs f32 elements";
  // A block-scope tile is split into 64-row warpgroup tiles when its rows
  // are 64 per consumer warpgroup (tile-warp-specialize).
  int64_t rows = tile.getShape()[0];
  bool slabs = tile.getScope() == Scope::block ? rows % 64 == 0 : rows == 64;
  if (!slabs || tile.getShape()[1] % 8)
    return "holds 64-row slabs: needs 64 rows (per warpgroup) and a "
           "multiple of 8 columns";
  return "";
}

/// A register value moved to or from `memory`: where that is a global view
/// in fragment order, the value must be a tile that fits it. `how` says
/// the direction ("read into", "written from").
static LogicalResult verifyFragmentView(Operation *op, StringRef how,
                                        Type value, Type memory) {
  auto view = dyn_cast<GlobalType>(memory);
  if (!view || !view.getFragments())
    return success();
  auto tile = dyn_cast<RegTileType>(value);
  if (!tile)
    return op->emitOpError("a global view in fragment order is ")
           << how << " register tiles, not " << value;
  if (std::string why = checkFragmentOrder(tile); !why.empty())
    return op->emitOpError("a global view in fragment order ")
           << why << "; got " << tile;
  return success();
}

LogicalResult LoadOp::verify() {
  if (failed(verifyFragmentView(*this, "read into", getResult().getType(),
                                getSrc().getType())))
    return failure();
  return verifyRegisterTransfer(*this, getResult().getType(),
                                getSrc().getType(), getCoords());
}

LogicalResult StoreOp::verify() {
  Type dst = getDst().getType();
  auto tile = dyn_cast<RegTileType>(getValue().getType());
  auto view = dyn_cast<GlobalType>(dst);
  if (getDevice() && !view)
    return emitOpError("'device' picks a copy of a multi-device view; it "
                       "does not apply to shared memory");
  if (view && failed(verifyDeviceOperand(*this, view, getDevice())))
    return failure();
  if (auto vec = dyn_cast<SharedVecType>(dst); vec && tile) {
    // A register tile into a shared vector: staging in fragment order.
    if (std::string why = checkFragmentOrder(tile); !why.empty())
      return emitOpError("a register tile stored to a shared vector is "
                         "written in fragment order, which ")
             << why << "; got " << tile;
    if (vec.isRing())
      return emitOpError("operates on one buffer, not a ring; take a "
                         "'tile.slot' first");
    if (vec.getLength() != tile.getShape()[0] * tile.getShape()[1] ||
        vec.getElementType() != tile.getElementType())
      return emitOpError("a register tile stored to a shared vector needs a ")
             << "vector of its " << tile.getShape()[0] * tile.getShape()[1]
             << " elements and element type, got " << vec;
    if (!getCoords().empty())
      return emitOpError("takes no coordinates for shared memory");
    if (getReduce())
      return emitOpError("'reduce add' stores register tiles to global "
                         "views only");
    return success();
  }
  if (failed(
          verifyFragmentView(*this, "written from", getValue().getType(), dst)))
    return failure();
  if (failed(verifyRegisterTransfer(*this, getValue().getType(), dst,
                                    getCoords())))
    return failure();
  if (!getReduce())
    return success();
  if (!tile || !view)
    return emitOpError("'reduce add' stores register tiles to global views "
                       "only");
  Type element = tile.getElementType();
  if (!element.isF32() && !element.isF16() && !element.isBF16())
    return emitOpError("'reduce add' needs f32, f16 or bf16 elements, got ")
           << element;
  return success();
}

LogicalResult StoreAsyncOp::verify() {
  if (failed(verifyDeviceOperand(*this, getDst().getType(), getDevice())))
    return failure();
  auto [shape, element, isRing] = sharedBuffer(getSrc().getType());
  if (auto view = dyn_cast<GlobalType>(getDst().getType());
      view && view.getFragments()) {
    // One 64-row slab's columns [c * k, (c + 1) * k) from a shared vector
    // staged in fragment order: one contiguous bulk copy.
    auto vec = dyn_cast<SharedVecType>(getSrc().getType());
    int64_t cols = view.getShape().back();
    if (!vec || vec.isRing() || vec.getLength() % 512 ||
        (!ShapedType::isDynamic(cols) && cols % (vec.getLength() / 64)))
      return emitOpError("copies to a global view in fragment order take a "
                         "shared vector of 64 x k elements (k a multiple "
                         "of 8 dividing the view's ")
             << cols << " columns), got " << getSrc().getType();
    return verifyTransfer(*this, "source", {64, vec.getLength() / 64}, element,
                          false, view, getCoords());
  }
  if (failed(verifyTransfer(*this, "source", shape, element, isRing,
                            getDst().getType(), getCoords())) ||
      failed(verifyAsyncBox(*this, shape, element)))
    return failure();
  if (getReduce() && !(element.isF32() || element.isF16() || element.isBF16()))
    return emitOpError("add-reduce needs f32, f16 or bf16 elements, got ")
           << element;
  return success();
}

LogicalResult PrefetchOp::verify() {
  size_t rank = getSrc().getType().getShape().size();
  if (getCoords().size() != rank)
    return emitOpError("expected ")
           << rank << " coordinates for a rank-" << rank << " global view, got "
           << getCoords().size();
  ArrayRef<int64_t> box = getBox();
  if (box.empty() || box.size() > rank || box.size() > 2 ||
      llvm::any_of(box, [](int64_t dim) { return dim <= 0; }))
    return emitOpError("box must have 1 or 2 positive dimensions, at most the "
                       "view's rank");
  return success();
}
