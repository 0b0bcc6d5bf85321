//===- ComputeOps.cpp - MMA, elementwise ops, reductions, sync ------------===//
#include "tk/Dialect/Tile/IR/TileOps.h"
#include "tk/Target/TargetInfo.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace tk::tile;

/// Elementwise arithmetic runs on f32, f16 and bf16; fp8 is storage only.
static LogicalResult verifyArithmeticElement(Operation *op, Type type) {
  Type element = cast<RegisterType>(type).getElementType();
  if (element.isF32() || element.isF16() || element.isBF16())
    return success();
  return op->emitOpError("arithmetic needs f32, f16 or bf16 elements, got ")
         << element << "; 'tile.cast' it first";
}

#define TK_ARITHMETIC_VERIFIER(OP)                                             \
  LogicalResult OP::verify() {                                                 \
    return verifyArithmeticElement(*this, getType());                          \
  }
TK_ARITHMETIC_VERIFIER(ExpOp)
TK_ARITHMETIC_VERIFIER(Exp2Op)
TK_ARITHMETIC_VERIFIER(LogOp)
TK_ARITHMETIC_VERIFIER(NegOp)
TK_ARITHMETIC_VERIFIER(AbsOp)
TK_ARITHMETIC_VERIFIER(FmaOp)
LogicalResult CumsumOp::verify() {
  bool tile = isa<RegTileType>(getType());
  if (tile && !getAxis())
    return emitOpError("of a tile needs an axis: 'row' (along each row) or "
                       "'col' (along each column)");
  if (!tile && getAxis())
    return emitOpError("of a vector takes no axis");
  return verifyArithmeticElement(*this, getType());
}
LogicalResult VecReduceOp::verify() {
  return verifyArithmeticElement(*this, getX().getType());
}
#undef TK_ARITHMETIC_VERIFIER

static LogicalResult verifyBinary(Operation *op, Type lhs, Type rhs) {
  if (rhs != lhs && !rhs.isF32())
    return op->emitOpError("rhs type ")
           << rhs << " must match lhs type " << lhs << " or be an f32 scalar";
  return verifyArithmeticElement(op, lhs);
}

#define TK_BINARY_VERIFIER(OP)                                                 \
  LogicalResult OP::verify() {                                                 \
    return verifyBinary(*this, getLhs().getType(), getRhs().getType());        \
  }
TK_BINARY_VERIFIER(AddOp)
TK_BINARY_VERIFIER(SubOp)
TK_BINARY_VERIFIER(MulOp)
TK_BINARY_VERIFIER(DivOp)
TK_BINARY_VERIFIER(MaxOp)
TK_BINARY_VERIFIER(MinOp)
#undef TK_BINARY_VERIFIER

/// Checks the parts of two register types that `keep` names are equal.
enum Keep : unsigned {
  kKind = 1,
  kShape = 2,
  kElement = 4,
  kScope = 8,
  kLayout = 16
};

static LogicalResult verifyKeeps(Operation *op, Type from, Type to,
                                 unsigned keep, StringRef hint) {
  auto a = cast<RegisterType>(from), b = cast<RegisterType>(to);
  auto fail = [&](StringRef what) {
    return op->emitOpError("must keep the ") << what << " (" << hint << ")";
  };
  if ((keep & kKind) && from.getTypeID() != to.getTypeID())
    return fail("kind of value: tile to tile, vector to vector");
  if ((keep & kShape) && a.getShape() != b.getShape())
    return fail("shape");
  if ((keep & kElement) && a.getElementType() != b.getElementType())
    return fail("element type");
  if ((keep & kScope) && a.getScope() != b.getScope())
    return fail("scope");
  if ((keep & kLayout) && a.getLayout() != b.getLayout())
    return fail("layout");
  return success();
}

LogicalResult CastOp::verify() {
  return verifyKeeps(*this, getX().getType(), getType(),
                     kKind | kShape | kScope | kLayout,
                     "it changes only the element type; use "
                     "'tile.convert_layout' for layouts");
}

LogicalResult ConvertLayoutOp::verify() {
  return verifyKeeps(*this, getX().getType(), getType(),
                     kKind | kShape | kScope | kElement,
                     "it changes only the layout; use 'tile.cast' for "
                     "element types");
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor) {
  if (getX().getType() == getType())
    return getX();
  return {};
}

LogicalResult OuterOp::verify() {
  RegTileType lhs = getLhs().getType(), rhs = getRhs().getType(),
              result = getType();
  for (RegTileType operand : {rhs, result})
    if (operand.getElementType() != lhs.getElementType() ||
        operand.getScope() != lhs.getScope())
      return emitOpError("operands and result must share the element type "
                         "and scope, got ")
             << lhs << ", " << rhs << " -> " << result;
  if (rhs.getShape()[0] != lhs.getShape()[0])
    return emitOpError("operands must have the same rows, got ")
           << lhs.getShape()[0] << " and " << rhs.getShape()[0];
  int64_t cols = lhs.getShape()[1] * rhs.getShape()[1];
  if (result.getShape()[0] != lhs.getShape()[0] || result.getShape()[1] != cols)
    return emitOpError("result shape must be ")
           << lhs.getShape()[0] << "x" << cols
           << " (the operands' rows, the product of their columns), got "
           << result.getShape()[0] << "x" << result.getShape()[1];
  return verifyArithmeticElement(*this, lhs);
}

LogicalResult TransposeOp::verify() {
  RegTileType x = getX().getType(), result = getType();
  if (failed(verifyKeeps(*this, x, result, kElement | kScope,
                         "it only swaps rows and columns")))
    return failure();
  if (result.getShape()[0] != x.getShape()[1] ||
      result.getShape()[1] != x.getShape()[0])
    return emitOpError("result shape must be ")
           << x.getShape()[1] << "x" << x.getShape()[0]
           << ", the transpose of the input";
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions and broadcasts
//===----------------------------------------------------------------------===//

/// A vector running along `axis` of `tile`: its length, element type, scope
/// and (when both are known) layout.
static LogicalResult verifyVectorOfTile(Operation *op, RegTileType tile,
                                        RegVecType vec, Axis axis) {
  bool rows = axis == Axis::row;
  int64_t expected = tile.getShape()[rows ? 0 : 1];
  if (vec.getShape()[0] != expected)
    return op->emitOpError("vector length ")
           << vec.getShape()[0] << " does not match the " << expected << " "
           << (rows ? "rows" : "columns") << " of the tile";
  if (vec.getElementType() != tile.getElementType())
    return op->emitOpError("vector and tile element types differ: ")
           << vec.getElementType() << " vs " << tile.getElementType();
  if (vec.getScope() != tile.getScope())
    return op->emitOpError("vector and tile scopes differ: ")
           << stringifyScope(vec.getScope()) << " vs "
           << stringifyScope(tile.getScope());
  if (vec.getLayout() && tile.getLayout()) {
    auto parent = cast<LayoutAttrInterface>(tile.getLayout());
    auto expectedLayout = VecLayoutAttr::get(op->getContext(), axis, parent);
    if (vec.getLayout() != expectedLayout)
      return op->emitOpError("vector layout must be ")
             << Attribute(expectedLayout) << " to match the tile, got "
             << vec.getLayout();
    // The lowering reads the vector's registers off the tile's map, so the
    // vector layout must place its elements as the tile holds its rows
    // (columns). A parent whose placement depends on the tile's other
    // dimension (#tile.chunks spreads its lanes over the columns first)
    // can place them otherwise.
    unsigned warps = getScopeWarps(tile.getScope());
    if (tile.getScope() == Scope::block)
      if (auto kernel = op->getParentOfType<KernelOp>())
        warps = kernel.getNumWarps();
    FragmentMap tileMap, vecMap;
    std::string why;
    if (warps && succeeded(getFragmentMap(tile, warps, tileMap, why)) &&
        succeeded(getFragmentMap(vec, warps, vecMap, why)) &&
        !tileMap.slice(rows).samePlacement(vecMap))
      return op->emitOpError("the tile's ")
             << (rows ? "rows" : "columns") << " are not placed as "
             << Attribute(expectedLayout)
             << " places a vector of them; use another tile layout";
  }
  return verifyArithmeticElement(op, tile);
}

#define TK_REDUCE_VERIFIER(OP, AXIS)                                           \
  LogicalResult OP::verify() {                                                 \
    return verifyVectorOfTile(*this, getX().getType(), getType(), AXIS);       \
  }
TK_REDUCE_VERIFIER(RowSumOp, Axis::row)
TK_REDUCE_VERIFIER(ColSumOp, Axis::col)
#undef TK_REDUCE_VERIFIER

/// A maximum with `slack` lags behind `init`, so it needs one.
#define TK_MAX_REDUCE_VERIFIER(OP, AXIS)                                       \
  LogicalResult OP::verify() {                                                 \
    if (getSlack() && !getInit())                                              \
      return emitOpError("slack needs an init vector (the running maximum "    \
                         "it may keep)");                                      \
    return verifyVectorOfTile(*this, getX().getType(), getType(), AXIS);       \
  }
TK_MAX_REDUCE_VERIFIER(RowMaxOp, Axis::row)
TK_MAX_REDUCE_VERIFIER(ColMaxOp, Axis::col)
#undef TK_MAX_REDUCE_VERIFIER

LogicalResult BroadcastOp::verify() {
  return verifyVectorOfTile(*this, getType(), getX().getType(), getAxis());
}

/// Whether `type` can hold an infinity (f8E4M3FN cannot).
static bool hasInfinity(Type type) {
  return APFloat::getInf(cast<FloatType>(type).getFloatSemantics())
      .isInfinity();
}

LogicalResult FillOp::verify() {
  Type element = cast<RegisterType>(getType()).getElementType();
  auto floatType = cast<FloatType>(element);
  APFloat value = getValueAttr().getValue();
  if (value.isInfinity()) {
    if (!hasInfinity(element))
      return emitOpError("fill value is infinite, but ")
             << element << " has no infinity";
    return success();
  }
  bool losesInfo = false;
  APFloat::opStatus status = value.convert(
      floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
  if (status & APFloat::opOverflow)
    return emitOpError("fill value ")
           << getValueAttr().getValueAsDouble() << " overflows " << element;
  return success();
}

static LogicalResult verifyMask(Operation *op, RegTileType type,
                                MaskFill fill) {
  if (fill == MaskFill::neg_inf && !hasInfinity(type.getElementType()))
    return op->emitOpError("cannot fill with neg_inf: ")
           << type.getElementType() << " has no infinity";
  return verifyArithmeticElement(op, type);
}

LogicalResult CausalMaskOp::verify() {
  return verifyMask(*this, getType(), getFill());
}

LogicalResult BoundMaskOp::verify() {
  return verifyMask(*this, getType(), getFill());
}

//===----------------------------------------------------------------------===//
// MMA
//===----------------------------------------------------------------------===//

namespace {
struct MmaOperand {
  int64_t rows, cols;
  Type element;
  bool shared;
  Scope scope;      // register operands only
  Attribute layout; // register operands only
};
} // namespace

static MmaOperand getMmaOperand(Type type) {
  if (auto tile = dyn_cast<SharedTileType>(type))
    return {tile.getRows(), tile.getCols(), tile.getElementType(),
            true,           Scope::warp,    {}};
  auto reg = cast<RegTileType>(type);
  return {reg.getShape()[0], reg.getShape()[1], reg.getElementType(), false,
          reg.getScope(),    reg.getLayout()};
}

static bool isF8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

/// The register layout an NVIDIA operand needs: `#tile.row` when K runs along
/// its columns, `#tile.col` when along its rows.
static LogicalResult verifyNvidiaOperandLayout(Operation *op, StringRef name,
                                               const MmaOperand &operand,
                                               bool kAlongRows) {
  if (operand.shared || !operand.layout)
    return success();
  bool ok = kAlongRows ? isa<ColLayoutAttr>(operand.layout)
                       : isa<RowLayoutAttr>(operand.layout);
  if (!ok)
    return op->emitOpError("register ")
           << name << " operand needs layout "
           << (kAlongRows ? "#tile.col" : "#tile.row") << " (K runs along its "
           << (kAlongRows ? "rows" : "columns") << "), got " << operand.layout;
  return success();
}

/// The rules shared by tile.mma and tile.mma_async.
template <typename OpTy> static LogicalResult verifyMma(OpTy op) {
  MmaOperand a = getMmaOperand(op.getA().getType());
  MmaOperand b = getMmaOperand(op.getB().getType());
  RegTileType d = op.getType();
  MmaForm formKind = op.getForm();
  bool aT = formKind == MmaForm::AtB || formKind == MmaForm::AtBt;
  bool bT = formKind == MmaForm::ABt || formKind == MmaForm::AtBt;
  StringRef form = stringifyMmaForm(formKind);
  auto emitOpError = [&](const Twine &message = {}) {
    return op.emitOpError(message);
  };
  Operation *self = op.getOperation();
  for (Value v : {op.getA(), op.getB()})
    if (auto tile = dyn_cast<SharedTileType>(v.getType());
        tile && tile.isRing())
      return emitOpError("operands must be single shared tiles, not rings; "
                         "take a 'tile.slot' first");

  int64_t m = aT ? a.cols : a.rows, kA = aT ? a.rows : a.cols;
  int64_t kB = bT ? b.cols : b.rows, n = bT ? b.rows : b.cols;
  if (kA != kB)
    return emitOpError("A has K = ")
           << kA << " but B has K = " << kB << " in form " << form;
  if (d.getShape()[0] != m || d.getShape()[1] != n)
    return emitOpError("result shape must be ")
           << m << "x" << n << " for form " << form << ", got "
           << d.getShape()[0] << "x" << d.getShape()[1];

  auto isInput = [](Type t) { return t.isBF16() || t.isF16() || isF8(t); };
  if (!isInput(a.element) || !isInput(b.element))
    return emitOpError("A and B must be bf16, f16, f8E4M3FN or f8E5M2, got ")
           << a.element << " and " << b.element;
  if (a.element != b.element && !(isF8(a.element) && isF8(b.element)))
    return emitOpError("A and B element types differ: ")
           << a.element << " vs " << b.element;
  Type out = d.getElementType();
  if (!(out.isF32() || (out.isF16() && a.element.isF16())))
    return emitOpError("result must be f32 (or f16 for f16 operands), got ")
           << out;
  int64_t kStep = isF8(a.element) ? 32 : 16;
  if (kA % kStep != 0)
    return emitOpError("K (") << kA << ") must be a multiple of " << kStep
                              << " for " << a.element << " operands";

  const tk::TargetInfo &target = getTargetInfo(self);
  for (auto [name, operand] : {std::pair{"A", a}, std::pair{"B", b}})
    if (!operand.shared && operand.scope != d.getScope())
      return emitOpError() << name << " scope '"
                           << stringifyScope(operand.scope)
                           << "' does not match result scope '"
                           << stringifyScope(d.getScope()) << "'";

  if (target.vendor == tk::Vendor::amd) {
    // Shared (LDS) operands are read into MFMA fragments by the lowering;
    // register operands must already hold the matching fragments.
    auto mfma = dyn_cast_or_null<MfmaLayoutAttr>(d.getLayout());
    if (d.getLayout() && !(mfma && mfma.getOperand() == MfmaOperand::acc))
      return emitOpError("result layout must be an MFMA accumulator layout on ")
             << target.name << ", got " << d.getLayout();
    for (auto [name, v, want] : {std::tuple{"A", op.getA(), MfmaOperand::a},
                                 std::tuple{"B", op.getB(), MfmaOperand::b}}) {
      auto tile = dyn_cast<RegTileType>(v.getType());
      if (!tile || !tile.getLayout())
        continue;
      auto frag = dyn_cast<MfmaLayoutAttr>(tile.getLayout());
      if (!frag || frag.getOperand() != want)
        return emitOpError() << name << " layout must be the MFMA '"
                             << stringifyMfmaOperand(want) << "' fragment on "
                             << target.name << ", got " << tile.getLayout();
      if (mfma && (frag.getM() != mfma.getM() || frag.getN() != mfma.getN() ||
                   frag.getK() != mfma.getK() ||
                   frag.getWaveRows() != mfma.getWaveRows() ||
                   frag.getWaveCols() != mfma.getWaveCols()))
        return emitOpError() << name << " fragment " << tile.getLayout()
                             << " does not match the result's " << d.getLayout()
                             << " (same instruction shape and wave grid)";
    }
    return success();
  }

  if (d.getLayout() && !isa<MmaAccLayoutAttr>(d.getLayout()))
    return emitOpError("result layout must be #tile.mma_acc on ")
           << target.name << ", got " << d.getLayout();
  if (failed(verifyNvidiaOperandLayout(self, "A", a, /*kAlongRows=*/aT)) ||
      failed(verifyNvidiaOperandLayout(self, "B", b, /*kAlongRows=*/!bT)))
    return failure();

  if (!a.shared && !b.shared) {
    // Warp-level mma.sync.
    if (d.getScope() != Scope::warp)
      return emitOpError("an mma of two register operands is a warp mma.sync "
                         "on ")
             << target.name << ": the result must have warp scope";
    if (m % 16 != 0 || n % 8 != 0)
      return emitOpError("warp mma needs M a multiple of 16 and N of 8, got ")
             << m << "x" << n;
    return success();
  }
  // Warpgroup wgmma: B from shared memory, A from shared memory or registers.
  if (!b.shared)
    return emitOpError("a warpgroup mma reads B from shared memory; B is in "
                       "registers");
  // At block scope the block's warpgroups share the rows (the naive form;
  // tile-warp-specialize splits it).
  if (d.getScope() == Scope::warp)
    return emitOpError("an mma with a shared-memory operand is a warpgroup "
                       "wgmma: the result must have warpgroup or block "
                       "scope, got 'warp'");
  if (!a.shared && aT)
    return emitOpError("a register A operand cannot be transposed; use form "
                       "AB or ABt, or keep A in shared memory");
  if (isF8(a.element) && formKind != MmaForm::ABt)
    return emitOpError("f8 operands must both be K-major: use form ABt");
  if (m % 64 != 0 || n % 8 != 0)
    return emitOpError("warpgroup mma needs M a multiple of 64 and N of 8, "
                       "got ")
           << m << "x" << n;
  return success();
}

LogicalResult MmaOp::verify() { return verifyMma(*this); }
LogicalResult MmaAsyncOp::verify() { return verifyMma(*this); }

//===----------------------------------------------------------------------===//
// Sync
//===----------------------------------------------------------------------===//

int64_t SemExpectOp::getBytes() {
  int64_t bytes = 0;
  for (Type type : getBuffers().getTypes())
    bytes += getSharedTileBytes(type);
  return bytes;
}

LogicalResult SemExpectOp::verify() {
  if (getBuffers().empty())
    return emitOpError("needs at least one shared buffer to expect");
  for (Type type : getBuffers().getTypes()) {
    bool ring = isa<SharedTileType>(type) ? cast<SharedTileType>(type).isRing()
                                          : cast<SharedVecType>(type).isRing();
    if (ring)
      return emitOpError("expects single buffers, not rings; take a "
                         "'tile.slot' first");
  }
  constexpr int64_t kMaxTransactionBytes = (1 << 20) - 1;
  if (getBytes() > kMaxTransactionBytes)
    return emitOpError("expects ")
           << getBytes() << " bytes; a semaphore's transaction count holds at "
           << "most " << kMaxTransactionBytes;
  return success();
}

static constexpr int64_t kMaxSemCount = (1 << 20) - 1;

LogicalResult SemInitOp::verify() {
  if (!isa_and_nonnull<KernelOp>((*this)->getParentOp()))
    return emitOpError("must be directly in a 'tile.kernel' body: semaphores "
                       "are initialised once, before any role or loop uses "
                       "them");
  // An mbarrier counts at most 2^20 - 1 pending arrivals.
  if (int64_t count = getCount(); count > kMaxSemCount)
    return emitOpError("arrival count must be at most ")
           << kMaxSemCount << " (the mbarrier's limit), got " << count;
  return success();
}

LogicalResult MmaTurnOp::verify() {
  auto ws = (*this)->getParentOfType<WarpSpecializeOp>();
  if (!ws || !ws.getConsumer().isAncestor((*this)->getParentRegion()))
    return emitOpError("must be inside the consumer role of a "
                       "'tile.warp_specialize'");
  int64_t consumers = ws.getConsumerWarpgroups();
  if (consumers < 2 || consumers > kMaxTurnWarpgroups)
    return emitOpError("takes turns among 2 to ")
           << kMaxTurnWarpgroups << " consumer warpgroups, got " << consumers;
  const tk::TargetInfo &target = getTargetInfo(*this);
  if (target.vendor != tk::Vendor::nvidia)
    return emitOpError("MMA turns are lowered for NVIDIA targets only; ")
           << target.name << " is not one";
  return success();
}

LogicalResult SemArriveOp::verify() {
  if (getCluster())
    return verifyInCluster(*this, "a cluster-wide arrival");
  return success();
}

LogicalResult ClusterSyncOp::verify() {
  if (failed(verifyInCluster(*this, "a cluster barrier")))
    return failure();
  if ((*this)->getParentOfType<WarpSpecializeOp>())
    return emitOpError("a cluster barrier inside a warp-specialized region "
                       "waits for warps that never arrive; place it outside "
                       "'tile.warp_specialize'");
  return success();
}

/// Counters of tile.signal_add / tile.signal_wait: a 1-d view of i32.
static LogicalResult verifyCounters(Operation *op, GlobalType counters) {
  if (!op->getParentOfType<KernelOp>())
    return op->emitOpError("must be inside a 'tile.kernel'");
  if (counters.getShape().size() != 1 ||
      !counters.getElementType().isInteger(32))
    return op->emitOpError("counters must be a 1-d global view of i32, got ")
           << counters;
  return success();
}

LogicalResult SignalAddOp::verify() {
  if (failed(verifyDeviceOperand(*this, getCounters().getType(), getDevice())))
    return failure();
  return verifyCounters(*this, getCounters().getType());
}

LogicalResult SignalWaitOp::verify() {
  if (failed(verifyDeviceOperand(*this, getCounters().getType(), getDevice())))
    return failure();
  return verifyCounters(*this, getCounters().getType());
}

LogicalResult DeviceBarrierOp::verify() {
  GlobalType counters = getCounters().getType();
  if (failed(verifyCounters(*this, counters)))
    return failure();
  if (!counters.getDevices())
    return emitOpError("counts the blocks of every device in a multi-device "
                       "view (!tile.gl<..., devices = N>), got ")
           << counters;
  // Every block of every device waits for all the others: with one tile per
  // block, a grid larger than what is resident would never complete. A
  // kernel without a tile loop is one block.
  auto kernel = (*this)->getParentOfType<KernelOp>();
  if (kernel.getGrid() != GridPolicy::persistent &&
      kernel.walk([](ForeachTileOp) { return WalkResult::interrupt(); })
          .wasInterrupted())
    return emitOpError("needs a kernel with 'grid = persistent' when it has "
                       "a tile loop: every block of every device waits for "
                       "all the others, so all must be resident at once");
  return success();
}
