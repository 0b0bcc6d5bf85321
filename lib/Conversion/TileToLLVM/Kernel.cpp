//===- Kernel.cpp - Helpers and the kernel ABI, for both targets ----------===//
//
// What both lowerings share: the small builders of Common.h (dispatching on
// the target where the hardware differs), the check that a kernel is within
// what a lowering handles, and the kernel ABI: parameters, the llvm.func in
// `gpu.module @tk_kernels` and the manifest's description of the launch.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "tk/Target/TargetInfo.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/IRMapping.h"

#include <numeric>

using namespace mlir;
using namespace tk::tile;
using namespace tk::lower;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

unsigned tk::lower::valueWarps(RegisterType type) {
  if (type.getScope() != Scope::block)
    return getScopeWarps(type.getScope());
  Attribute layout = type.getLayout();
  if (auto vec = dyn_cast_or_null<VecLayoutAttr>(layout))
    layout = vec.getParent();
  if (auto mfma = dyn_cast_or_null<MfmaLayoutAttr>(layout))
    return mfma.getWaveRows() * mfma.getWaveCols();
  if (auto chunks = dyn_cast_or_null<ChunksLayoutAttr>(layout))
    return chunks.getWarps();
  return 0;
}

FailureOr<int64_t> tk::lower::getElementsPerThread(RegisterType type,
                                                   std::string &why) {
  unsigned warps = valueWarps(type);
  if (!warps) {
    why = "block-scope register values are lowered only with an MFMA wave "
          "grid or #tile.chunks (AMD); on NVIDIA run tile-warp-specialize or "
          "use warpgroup or warp scope";
    return failure();
  }
  FragmentMap map;
  if (failed(getFragmentMap(type, warps, map, why)))
    return failure();
  return map.numRegs();
}

FailureOr<FragmentMap> tk::lower::getScopeFragmentMap(RegisterType type) {
  unsigned warps = valueWarps(type);
  FragmentMap map;
  std::string why;
  if (!warps || failed(getFragmentMap(type, warps, map, why)))
    return failure();
  return map;
}

void tk::lower::addModeOffsets(OpBuilder &b, Location loc,
                               ArrayRef<FragmentMode> modes, Value id,
                               Value &row, Value &col) {
  int64_t stride = 1;
  for (const FragmentMode &mode : modes) {
    Value shifted =
        arith::DivUIOp::create(b, loc, id, constIndex(b, loc, stride));
    Value digit =
        arith::RemUIOp::create(b, loc, shifted, constIndex(b, loc, mode.size));
    if (mode.rowStride)
      row = arith::AddIOp::create(
          b, loc, row,
          arith::MulIOp::create(b, loc, digit,
                                constIndex(b, loc, mode.rowStride)));
    if (mode.colStride)
      col = arith::AddIOp::create(
          b, loc, col,
          arith::MulIOp::create(b, loc, digit,
                                constIndex(b, loc, mode.colStride)));
    stride *= mode.size;
  }
}

std::pair<Value, Value> tk::lower::threadOrigin(OpBuilder &b, Location loc,
                                                const FragmentMap &map,
                                                Value row0, Value col0) {
  Value tid = threadIndex(b, loc);
  int64_t lanes = map.numLanes();
  Value lane = arith::RemUIOp::create(b, loc, tid, constIndex(b, loc, lanes));
  Value warpInBlock =
      arith::DivUIOp::create(b, loc, tid, constIndex(b, loc, lanes));
  Value warp = arith::RemUIOp::create(b, loc, warpInBlock,
                                      constIndex(b, loc, map.numWarps()));
  Value row = row0, col = col0;
  addModeOffsets(b, loc, map.modes(FragmentMap::Index::lane), lane, row, col);
  addModeOffsets(b, loc, map.modes(FragmentMap::Index::warp), warp, row, col);
  return {row, col};
}

TileTypeConverter::TileTypeConverter(MLIRContext *ctx) {
  addConversion([](Type type) { return type; });
  auto registerStruct = [ctx](RegisterType type) -> std::optional<Type> {
    std::string why;
    FailureOr<int64_t> count = getElementsPerThread(type, why);
    if (failed(count))
      return std::nullopt;
    SmallVector<Type> fields(*count, type.getElementType());
    return LLVM::LLVMStructType::getLiteral(ctx, fields);
  };
  addConversion([=](RegTileType type) { return registerStruct(type); });
  addConversion([=](RegVecType type) { return registerStruct(type); });
  auto shared = LLVM::LLVMPointerType::get(ctx, 3);
  addConversion([=](SharedTileType) { return shared; });
  addConversion([=](SharedVecType) { return shared; });
  addConversion([=](SemType) { return shared; });
  addConversion([=](GlobalType) { return LLVM::LLVMPointerType::get(ctx, 1); });
  auto cast = [](OpBuilder &b, Type type, ValueRange inputs,
                 Location loc) -> Value {
    return UnrealizedConversionCastOp::create(b, loc, type, inputs)
        .getResult(0);
  };
  addSourceMaterialization(cast);
  addTargetMaterialization(cast);
}

Value tk::lower::constI32(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 32);
}
Value tk::lower::constI64(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 64);
}
Value tk::lower::constIndex(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}
Value tk::lower::toI32(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isInteger(32))
    return v;
  if (v.getType().isIndex())
    return arith::IndexCastOp::create(b, loc, b.getI32Type(), v);
  return arith::TruncIOp::create(b, loc, b.getI32Type(), v);
}
Value tk::lower::toI64(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isInteger(64))
    return v;
  if (v.getType().isIndex())
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
  return arith::ExtUIOp::create(b, loc, b.getI64Type(), v);
}
Value tk::lower::toIndex(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isIndex())
    return v;
  return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v);
}
LLVM::LLVMFuncOp tk::lower::enclosingKernel(OpBuilder &b) {
  Operation *op = b.getInsertionBlock()->getParentOp();
  if (auto func = dyn_cast<LLVM::LLVMFuncOp>(op))
    return func;
  return op->getParentOfType<LLVM::LLVMFuncOp>();
}
bool tk::lower::targetsAMD(OpBuilder &b) {
  LLVM::LLVMFuncOp func = enclosingKernel(b);
  return func && func->hasAttr(ROCDL::ROCDLDialect::getKernelFuncAttrName());
}
int64_t tk::lower::warpSize(OpBuilder &b) { return targetsAMD(b) ? 64 : 32; }
Value tk::lower::threadIndex(OpBuilder &b, Location loc) {
  Type i32 = b.getI32Type();
  if (targetsAMD(b))
    return toIndex(b, loc, ROCDL::ThreadIdXOp::create(b, loc, i32));
  return toIndex(b, loc, NVVM::ThreadIdXOp::create(b, loc, i32));
}
Value tk::lower::blockIndex(OpBuilder &b, Location loc) {
  Type i32 = b.getI32Type();
  if (targetsAMD(b))
    return toIndex(b, loc, ROCDL::BlockIdXOp::create(b, loc, i32));
  return toIndex(b, loc, NVVM::BlockIdXOp::create(b, loc, i32));
}
Value tk::lower::gridSize(OpBuilder &b, Location loc) {
  Type i32 = b.getI32Type();
  if (targetsAMD(b)) {
    // Workgroups along x from the HSA dispatch packet: grid_size_x (u32 at
    // byte 12, in work-items) / workgroup_size_x (u16 at byte 4).
    // (rocdl.grid.dim.x would need ROCm's device libraries.)
    auto constant = LLVM::LLVMPointerType::get(b.getContext(), 4);
    Value packet =
        LLVM::CallIntrinsicOp::create(
            b, loc, constant, b.getStringAttr("llvm.amdgcn.dispatch.ptr"),
            ValueRange{})
            .getResult(0);
    auto field = [&](int64_t offset, Type type) -> Value {
      Value at = LLVM::GEPOp::create(
          b, loc, constant, b.getI8Type(), packet,
          ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(offset)});
      Value v = LLVM::LoadOp::create(b, loc, type, at);
      return type == i32 ? v : LLVM::ZExtOp::create(b, loc, i32, v).getResult();
    };
    Value items = field(12, i32);
    Value size = field(4, b.getI16Type());
    return toIndex(b, loc, arith::DivUIOp::create(b, loc, items, size));
  }
  return toIndex(b, loc, NVVM::GridDimXOp::create(b, loc, i32));
}
Value tk::lower::packStruct(OpBuilder &b, Location loc, Type type,
                            ValueRange fields) {
  Value result = LLVM::UndefOp::create(b, loc, type);
  for (auto [i, v] : llvm::enumerate(fields))
    result = LLVM::InsertValueOp::create(b, loc, result, v, i);
  return result;
}
SmallVector<Value>
tk::lower::pairwise(OpBuilder &b, Location loc, ArrayRef<Value> x,
                    ArrayRef<Value> y,
                    llvm::function_ref<Value(Value, Value)> op) {
  SmallVector<SmallVector<Value>> operands = {llvm::to_vector(x),
                                              llvm::to_vector(y)};
  return pairwise(b, loc, operands,
                  [&](ValueRange v) { return op(v[0], v[1]); });
}
SmallVector<Value>
tk::lower::pairwise(OpBuilder &b, Location loc,
                    ArrayRef<SmallVector<Value>> operands,
                    llvm::function_ref<Value(ValueRange)> op) {
  size_t count = operands.front().size();
  assert(llvm::all_of(operands,
                      [&](const SmallVector<Value> &fields) {
                        return fields.size() == count;
                      }) &&
         "pairwise: operand lists differ in length");
  SmallVector<Value> result, args;
  size_t i = 0;
  if (count && isa<BFloat16Type, Float16Type>(operands.front()[0].getType())) {
    Type element = operands.front()[0].getType();
    auto pair = VectorType::get({2}, element);
    auto join = [&](Value lo, Value hi) {
      assert(lo.getType() == element && hi.getType() == element &&
             "pairwise: fields of different types");
      Value v = LLVM::UndefOp::create(b, loc, pair);
      v = LLVM::InsertElementOp::create(b, loc, v, lo, constI32(b, loc, 0));
      return LLVM::InsertElementOp::create(b, loc, v, hi, constI32(b, loc, 1))
          .getResult();
    };
    for (; i + 1 < count; i += 2) {
      args.clear();
      for (const SmallVector<Value> &fields : operands)
        args.push_back(join(fields[i], fields[i + 1]));
      Value both = op(args);
      for (int64_t half = 0; half < 2; ++half)
        result.push_back(LLVM::ExtractElementOp::create(
            b, loc, both, constI32(b, loc, half)));
    }
  }
  for (; i < count; ++i) {
    args.clear();
    for (const SmallVector<Value> &fields : operands)
      args.push_back(fields[i]);
    result.push_back(op(args));
  }
  return result;
}
Value tk::lower::packFields(OpBuilder &b, Location loc, Value record,
                            int64_t first, VectorType type) {
  Value v = LLVM::UndefOp::create(b, loc, type);
  for (int64_t i = 0; i < type.getNumElements(); ++i) {
    Value e = LLVM::ExtractValueOp::create(b, loc, record, first + i);
    if (e.getType() != type.getElementType())
      e = LLVM::BitcastOp::create(b, loc, type.getElementType(), e);
    v = LLVM::InsertElementOp::create(b, loc, v, e, constI32(b, loc, i));
  }
  return v;
}
/// Runs `shuffle` (a 32-bit lane exchange) on `value`: narrower values
/// (bf16, f16) travel in the low bits of an i32, floats as their bits.
static Value through32Bits(OpBuilder &b, Location loc, Value value,
                           llvm::function_ref<Value(Value)> shuffle) {
  Type type = value.getType();
  Type i32 = b.getI32Type();
  unsigned width = type.getIntOrFloatBitWidth();
  if (width < 32) {
    Type narrow = b.getIntegerType(width);
    Value bits =
        type == narrow
            ? value
            : LLVM::BitcastOp::create(b, loc, narrow, value).getResult();
    Value got = LLVM::TruncOp::create(
        b, loc, narrow, shuffle(LLVM::ZExtOp::create(b, loc, i32, bits)));
    return type == narrow
               ? got
               : LLVM::BitcastOp::create(b, loc, type, got).getResult();
  }
  // NVIDIA's shuffles take f32 as it is.
  if (type == i32 || (type.isF32() && !targetsAMD(b)))
    return shuffle(value);
  Value got = shuffle(LLVM::BitcastOp::create(b, loc, i32, value));
  return LLVM::BitcastOp::create(b, loc, type, got);
}
Value tk::lower::shuffleXor(OpBuilder &b, Location loc, Value value,
                            int64_t mask) {
  if (targetsAMD(b)) {
    Value tid = threadIndex(b, loc);
    Value lane = arith::RemUIOp::create(b, loc, tid, constIndex(b, loc, 64));
    return shuffleIdx(
        b, loc, value,
        arith::XOrIOp::create(b, loc, lane, constIndex(b, loc, mask)));
  }
  return through32Bits(b, loc, value, [&](Value bits) -> Value {
    Value members = constI32(b, loc, -1);
    Value laneMask = constI32(b, loc, mask);
    Value clamp = constI32(b, loc, 0x1f);
    return NVVM::ShflOp::create(b, loc, bits.getType(), members, bits, laneMask,
                                clamp, NVVM::ShflKind::bfly, UnitAttr{});
  });
}
Value tk::lower::shuffleIdx(OpBuilder &b, Location loc, Value value,
                            Value lane) {
  return through32Bits(b, loc, value, [&](Value bits) -> Value {
    Type type = bits.getType();
    if (targetsAMD(b)) {
      // ds_bpermute takes the source lane's byte address (lane * 4).
      Value address = toI32(
          b, loc, arith::ShLIOp::create(b, loc, lane, constIndex(b, loc, 2)));
      return ROCDL::DsBpermuteOp::create(b, loc, type, address, bits);
    }
    Value members = constI32(b, loc, -1);
    Value source = toI32(b, loc, lane);
    Value clamp = constI32(b, loc, 0x1f);
    return NVVM::ShflOp::create(b, loc, type, members, bits, source, clamp,
                                NVVM::ShflKind::idx, UnitAttr{});
  });
}
static Value callF32(OpBuilder &b, Location loc, StringRef name, Value x) {
  return LLVM::CallIntrinsicOp::create(b, loc, b.getF32Type(),
                                       b.getStringAttr(name), ValueRange{x})
      .getResult(0);
}
Value tk::lower::fastExp2(OpBuilder &b, Location loc, Value x) {
  // Both are one special-function instruction without subnormal fix-ups:
  // MUFU.EX2 (flush-to-zero form) and v_exp_f32.
  return callF32(
      b, loc,
      targetsAMD(b) ? "llvm.amdgcn.exp2.f32" : "llvm.nvvm.ex2.approx.ftz.f", x);
}
Value tk::lower::fastLog2(OpBuilder &b, Location loc, Value x) {
  return callF32(
      b, loc, targetsAMD(b) ? "llvm.amdgcn.log.f32" : "llvm.nvvm.lg2.approx.f",
      x);
}
Value tk::lower::offsetPtr(OpBuilder &b, Location loc, Value ptr,
                           Value offset) {
  return LLVM::GEPOp::create(b, loc, ptr.getType(), b.getI8Type(), ptr,
                             ValueRange{toI64(b, loc, offset)});
}
Value tk::lower::kernelParam(Operation *op, int64_t index) {
  auto func = op->getParentOfType<LLVM::LLVMFuncOp>();
  return func.getArgument(index);
}

Value tk::lower::viewDimParam(Operation *op, int64_t axis) {
  int64_t copies = 1;
  if (auto attr = op->getAttrOfType<IntegerAttr>(kViewCopies))
    copies = attr.getInt();
  return kernelParam(op, op->getAttrOfType<IntegerAttr>(kViewParam).getInt() +
                             copies + axis);
}

Value tk::lower::selectAmong(OpBuilder &b, Location loc, ValueRange choices,
                             Value index) {
  Value chosen = choices.front();
  if (index.getType().isIndex())
    index = toI32(b, loc, index);
  else if (index.getType() != b.getI32Type())
    index = arith::TruncIOp::create(b, loc, b.getI32Type(), index);
  for (auto [k, choice] : llvm::enumerate(choices.drop_front())) {
    Value is = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, index,
                                     constI32(b, loc, k + 1));
    chosen = arith::SelectOp::create(b, loc, is, choice, chosen);
  }
  return chosen;
}

Value tk::lower::selectParam(OpBuilder &b, Location loc, Operation *op,
                             int64_t first, int64_t count, Value index) {
  auto func = op->getParentOfType<LLVM::LLVMFuncOp>();
  return selectAmong(b, loc, func.getArguments().slice(first, count), index);
}

Value tk::lower::ownDevice(OpBuilder &b, Location loc, Operation *op) {
  int64_t param = op->getAttrOfType<IntegerAttr>(kDeviceIdParam).getInt();
  return arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                    kernelParam(op, param));
}

Value tk::lower::deviceCount(OpBuilder &b, Location loc, Operation *op) {
  // The hidden device count follows the device index (lowerKernelSignature).
  int64_t param = op->getAttrOfType<IntegerAttr>(kDeviceIdParam).getInt() + 1;
  return arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                    kernelParam(op, param));
}

Value tk::lower::viewCopy(OpBuilder &b, Location loc, Operation *op, Value own,
                          Value device) {
  auto copies = op->getAttrOfType<IntegerAttr>(kViewCopies);
  if (!copies || !device)
    return own;
  return selectParam(b, loc, op,
                     op->getAttrOfType<IntegerAttr>(kViewParam).getInt(),
                     copies.getInt(), device);
}

SmallVector<int64_t> tk::lower::prefetchBox(PrefetchOp op) {
  ArrayRef<int64_t> box = op.getBox();
  SmallVector<int64_t> result(op.getSrc().getType().getShape().size(), 1);
  for (auto [i, dim] : llvm::enumerate(box))
    result[result.size() - box.size() + i] = std::min(dim, kMaxTmaBox);
  return result;
}
std::string tk::lower::prefetchUnsupportedReason(PrefetchOp op) {
  int64_t columns = op.getBox().back();
  int64_t bytes =
      columns * elementBytes(op.getSrc().getType().getElementType());
  if (bytes % 16)
    return "box rows of " + std::to_string(columns) + " elements (" +
           std::to_string(bytes) +
           " bytes) are not a multiple of 16 bytes, as TMA's boxes must be";
  return "";
}
Value tk::lower::tensorMap(OpBuilder &b, Location loc, Operation *op,
                           Value device) {
  int64_t first = op->getAttrOfType<IntegerAttr>(kTmaParam).getInt();
  auto copies = op->getAttrOfType<IntegerAttr>(kViewCopies);
  if (!copies)
    return kernelParam(op, first);
  return selectParam(b, loc, op, first, copies.getInt(),
                     device ? device : ownDevice(b, loc, op));
}
void tk::lower::emitOncePerWarpgroup(
    OpBuilder &b, Location loc, llvm::function_ref<void(OpBuilder &)> body) {
  Value tid = threadIndex(b, loc);
  Value lane = arith::RemUIOp::create(b, loc, tid, constIndex(b, loc, 128));
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                      constIndex(b, loc, 0));
  auto ifOp = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body(b);
}
Value tk::lower::uniformWarpgroupIndex(OpBuilder &b, Location loc) {
  Value tid = threadIndex(b, loc);
  Value wg =
      arith::DivUIOp::create(b, loc, tid, constIndex(b, loc, 4 * warpSize(b)));
  Value members = constI32(b, loc, -1);
  Value wg32 = toI32(b, loc, wg);
  Value lane0 = constI32(b, loc, 0);
  Value clamp = constI32(b, loc, 0x1f);
  return NVVM::ShflOp::create(b, loc, b.getI32Type(), members, wg32, lane0,
                              clamp, NVVM::ShflKind::idx, UnitAttr{});
}
Value tk::lower::consumerIndex(OpBuilder &b, Location loc, int64_t base) {
  Value wg = uniformWarpgroupIndex(b, loc);
  return arith::SubIOp::create(b, loc, wg, constI32(b, loc, base));
}
void tk::lower::turnTake(OpBuilder &b, Location loc, Value index) {
  Value id = arith::AddIOp::create(
      b, loc, index, constI32(b, loc, tk::tile::kFirstTurnBarrier));
  namedBarrier(b, loc, id, 256);
}
void tk::lower::turnPass(OpBuilder &b, Location loc, Value index,
                         int64_t turns) {
  Value next = arith::AddIOp::create(b, loc, index, constI32(b, loc, 1));
  Value wrap = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, next,
                                     constI32(b, loc, turns));
  next = arith::SelectOp::create(b, loc, wrap, constI32(b, loc, 0), next);
  Value id = arith::AddIOp::create(
      b, loc, next, constI32(b, loc, tk::tile::kFirstTurnBarrier));
  NVVM::BarrierArriveOp::create(b, loc, id, constI32(b, loc, 256));
}
void tk::lower::namedBarrier(OpBuilder &b, Location loc, Value id,
                             int64_t threads) {
  NVVM::BarrierOp::create(b, loc, /*res=*/Type{}, id, constI32(b, loc, threads),
                          /*reductionOp=*/NVVM::BarrierReductionAttr{},
                          /*reductionPredicate=*/Value{});
}
void tk::lower::blockBarrier(OpBuilder &b, Location loc, Operation *op) {
  if (targetsAMD(b)) {
    ROCDL::BarrierOp::create(b, loc);
    return;
  }
  if (auto role = op->getAttrOfType<DenseI64ArrayAttr>(kRoleBarrier)) {
    namedBarrier(b, loc, constI32(b, loc, role[0]), role[1]);
    return;
  }
  NVVM::Barrier0Op::create(b, loc);
}
static LLVM::InlineAsmOp createInlinePtx(OpBuilder &b, Location loc,
                                         TypeRange results, ValueRange operands,
                                         StringRef asmText,
                                         StringRef constraints) {
  return LLVM::InlineAsmOp::create(
      b, loc, results, operands, asmText, constraints,
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      ArrayAttr{});
}
void tk::lower::inlinePtx(OpBuilder &b, Location loc, ValueRange operands,
                          StringRef asmText, StringRef constraints) {
  createInlinePtx(b, loc, TypeRange{}, operands, asmText, constraints);
}
Value tk::lower::inlinePtx(OpBuilder &b, Location loc, Type result,
                           ValueRange operands, StringRef asmText,
                           StringRef constraints) {
  return createInlinePtx(b, loc, result, operands, asmText, constraints)
      .getResult(0);
}
void tk::lower::warpgroupSync(OpBuilder &b, Location loc) {
  Value tid = threadIndex(b, loc);
  Value wg = arith::DivUIOp::create(b, loc, tid, constIndex(b, loc, 128));
  Value id =
      toI32(b, loc, arith::AddIOp::create(b, loc, wg, constIndex(b, loc, 1)));
  namedBarrier(b, loc, id, 128);
}
int64_t tk::lower::allocationRows(Value tile) {
  while (auto subtile = tile.getDefiningOp<SubtileOp>())
    tile = subtile.getSource();
  return cast<SharedTileType>(tile.getType()).getRows();
}
int64_t tk::lower::elementBytes(Type type) {
  return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
}

//===----------------------------------------------------------------------===//
// The kernel ABI
//===----------------------------------------------------------------------===//

namespace {
/// One TMA descriptor parameter: a view, the box it moves, its swizzle.
struct TmaKey {
  unsigned view;
  SmallVector<int64_t> box; // outermost first
  unsigned swizzle;
  bool operator==(const TmaKey &o) const {
    return view == o.view && box == o.box && swizzle == o.swizzle;
  }
};

/// The box one async copy of `buffer` moves: for a swizzled tile one column
/// block of the swizzle's width, else the whole tile; leading dims of 1.
SmallVector<int64_t> getTmaBox(Type buffer, unsigned viewRank,
                               unsigned &swizzle) {
  SmallVector<int64_t> box(viewRank, 1);
  swizzle = 0;
  if (auto tile = dyn_cast<SharedTileType>(buffer)) {
    int64_t cols = tile.getCols();
    if (tile.getSwizzle() && tile.getSwizzle().getBytes()) {
      swizzle = tile.getSwizzle().getBytes();
      cols = std::min<int64_t>(cols,
                               swizzle / elementBytes(tile.getElementType()));
    }
    box[viewRank - 2] = tile.getRows();
    box[viewRank - 1] = cols;
  } else {
    box[viewRank - 1] = cast<SharedVecType>(buffer).getLength();
  }
  return box;
}

std::string typeName(Type type) {
  std::string name;
  llvm::raw_string_ostream os(name);
  os << type;
  return name;
}

/// Describes a tile-space bound for the launcher: a constant, an index
/// parameter, the launch's device count, a dimension of a view parameter,
/// or a ceiling division of one by a constant.
FailureOr<Attribute> describeBound(Value bound, Builder &b) {
  auto dimOf = [&](Value v) -> FailureOr<std::pair<int64_t, int64_t>> {
    auto dim = v.getDefiningOp<DimOp>();
    if (!dim)
      return failure();
    auto arg = dyn_cast<BlockArgument>(dim.getView());
    if (!arg)
      return failure();
    return std::pair<int64_t, int64_t>(arg.getArgNumber(),
                                       dim.getIndexAttr().getInt());
  };
  auto constant = [](Value v) -> std::optional<int64_t> {
    if (auto c = v.getDefiningOp<arith::ConstantIndexOp>())
      return c.value();
    return std::nullopt;
  };
  if (auto c = constant(bound))
    return Attribute(b.getDictionaryAttr(
        {b.getNamedAttr("const", b.getI64IntegerAttr(*c))}));
  // The launch's device count: the launcher knows it from the multi-device
  // views it passes.
  if (bound.getDefiningOp<DeviceCountOp>())
    return Attribute(b.getDictionaryAttr(
        {b.getNamedAttr("device_count", b.getBoolAttr(true))}));
  if (auto arg = dyn_cast<BlockArgument>(bound);
      arg && isa<KernelOp>(arg.getOwner()->getParentOp()))
    return Attribute(b.getDictionaryAttr(
        {b.getNamedAttr("param", b.getI64IntegerAttr(arg.getArgNumber()))}));
  auto entry = [&](std::pair<int64_t, int64_t> d, int64_t divisor) {
    return Attribute(b.getDictionaryAttr(
        {b.getNamedAttr("param", b.getI64IntegerAttr(d.first)),
         b.getNamedAttr("axis", b.getI64IntegerAttr(d.second)),
         b.getNamedAttr("divisor", b.getI64IntegerAttr(divisor))}));
  };
  if (auto d = dimOf(bound); succeeded(d))
    return entry(*d, 1);
  if (auto div = bound.getDefiningOp<arith::CeilDivUIOp>())
    if (auto d = dimOf(div.getLhs()); succeeded(d))
      if (auto c = constant(div.getRhs()))
        return entry(*d, *c);
  // A product of two such bounds (several tile dimensions folded into one).
  if (auto mul = bound.getDefiningOp<arith::MulIOp>()) {
    FailureOr<Attribute> lhs = describeBound(mul.getLhs(), b);
    if (failed(lhs))
      return failure();
    FailureOr<Attribute> rhs = describeBound(mul.getRhs(), b);
    if (failed(rhs))
      return failure();
    return Attribute(b.getDictionaryAttr(
        {b.getNamedAttr("product", b.getArrayAttr({*lhs, *rhs}))}));
  }
  return failure();
}

/// Thread 0 sets up the dynamic tile queue's mbarriers (full: one arrival,
/// the first thread's; empty: one per warp that walks the tiles), before any
/// thread can wait on them.
void initTileQueue(OpBuilder &b, Location loc, int64_t offset, int64_t warps) {
  Value tid = threadIndex(b, loc);
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                      constIndex(b, loc, 0));
  auto guard = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(guard.thenBlock()->getTerminator());
    for (int64_t s = 0; s < 2 * kTileQueueDepth; ++s) {
      Value barrier = sharedAt(b, loc, offset + 8 * s);
      NVVM::MBarrierInitOp::create(
          b, loc, barrier, constI32(b, loc, s < kTileQueueDepth ? 1 : warps),
          Value{});
    }
  }
  NVVM::FenceMbarrierInitOp::create(b, loc);
  NVVM::Barrier0Op::create(b, loc);
}
} // namespace

LogicalResult
tk::lower::checkLowerable(KernelOp kernel,
                          llvm::function_ref<std::string(Operation *)> reason) {
  if (!kernel.getWarpgroups())
    return kernel.emitOpError("needs launch(warpgroups = N) to be lowered; "
                              "set it or run tile-warp-specialize");
  if (auto dims = kernel.getCluster())
    for (size_t i = 1; i < dims->size(); ++i)
      if ((*dims)[i] != 1)
        return kernel.emitOpError(
            "cluster shapes other than [N, 1, 1] are not lowered yet: blocks "
            "are launched along x");
  WalkResult walk = kernel.walk([&](Operation *op) {
    if (std::string why = reason(op); !why.empty()) {
      op->emitOpError() << why;
      return WalkResult::interrupt();
    }
    // Unswizzled tiles are addressed at the accessed type's own row width:
    // a subtile of fewer columns would be read with the wrong row pitch.
    if (auto sub = dyn_cast<SubtileOp>(op)) {
      auto from = cast<SharedTileType>(sub.getSource().getType());
      auto swizzle = from.getSwizzle();
      if (swizzle && !swizzle.getBytes() &&
          sub.getType().getCols() != from.getCols()) {
        op->emitOpError("takes ")
            << sub.getType().getCols() << " of the " << from.getCols()
            << " columns of an unswizzled shared tile, which is not lowered "
               "(its rows would be addressed at the subtile's width); take "
               "whole rows or use a swizzled tile";
        return WalkResult::interrupt();
      }
    }
    // The math ops the lowering maps to the special-function unit; others
    // would reach LLVM IR untranslated.
    if (isa_and_nonnull<math::MathDialect>(op->getDialect()) &&
        !(isa<math::ExpOp, math::Exp2Op, math::LogOp>(op) &&
          op->getResult(0).getType().isF32())) {
      op->emitOpError("is not lowered: of the math dialect, f32 math.exp, "
                      "math.exp2 and math.log are (the tile ops cover tiles)");
      return WalkResult::interrupt();
    }
    for (Value v : op->getResults()) {
      auto type = dyn_cast<RegisterType>(v.getType());
      if (type &&
          isa<Float8E4M3FNType, Float8E5M2Type>(type.getElementType())) {
        op->emitOpError("makes an fp8 register value, which is not lowered "
                        "(fp8 is a storage type of global views and shared "
                        "tiles, which MMAs read)");
        return WalkResult::interrupt();
      }
      if (type && !type.getLayout()) {
        op->emitOpError("result layout is left open; set it or run "
                        "tile-assign-layouts before lowering");
        return WalkResult::interrupt();
      }
      std::string why;
      if (type && failed(getElementsPerThread(type, why))) {
        op->emitOpError() << "cannot be lowered: " << why;
        return WalkResult::interrupt();
      }
      auto shared = dyn_cast<SharedTileType>(v.getType());
      if (shared && !shared.getSwizzle()) {
        op->emitOpError("result swizzle is left open; set it or run "
                        "tile-assign-layouts before lowering");
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// Moves `kernel` into `gpuModule` as an llvm.func with the launch ABI and
/// returns the ABI description for the manifest.
FailureOr<DictionaryAttr>
tk::lower::lowerKernelSignature(KernelOp kernel, gpu::GPUModuleOp gpuModule) {
  MLIRContext *ctx = kernel.getContext();
  Builder b(ctx);
  Location loc = kernel.getLoc();
  Block &body = kernel.getBody().front();
  const tk::TargetInfo &target = getTargetInfo(kernel);

  // Parameters: views (a pointer per copy — one, or one per device of a
  // multi-device view — and one i64 per dim) and scalars in order.
  SmallVector<Type> paramTypes;
  SmallVector<Attribute> abi, params;
  SmallVector<int64_t> viewParam(body.getNumArguments(), -1);
  auto ptrGlobal = LLVM::LLVMPointerType::get(ctx, 1);
  auto copiesOf = [](Type type) -> int64_t {
    auto view = dyn_cast<GlobalType>(type);
    return view && view.getDevices() ? view.getDevices() : 1;
  };
  bool multiDevice = false;
  for (BlockArgument arg : body.getArguments()) {
    unsigned i = arg.getArgNumber();
    if (auto view = dyn_cast<GlobalType>(arg.getType())) {
      viewParam[i] = paramTypes.size();
      for (int64_t k = 0; k < copiesOf(view); ++k) {
        paramTypes.push_back(ptrGlobal);
        SmallVector<NamedAttribute> entry = {
            b.getNamedAttr("kind", b.getStringAttr("view_ptr")),
            b.getNamedAttr("param", b.getI64IntegerAttr(i))};
        if (view.getDevices())
          entry.push_back(b.getNamedAttr("device", b.getI64IntegerAttr(k)));
        abi.push_back(b.getDictionaryAttr(entry));
      }
      multiDevice |= view.getDevices() > 0;
      for (size_t d = 0; d < view.getShape().size(); ++d) {
        paramTypes.push_back(b.getI64Type());
        abi.push_back(b.getDictionaryAttr(
            {b.getNamedAttr("kind", b.getStringAttr("view_dim")),
             b.getNamedAttr("param", b.getI64IntegerAttr(i)),
             b.getNamedAttr("axis", b.getI64IntegerAttr(d))}));
      }
      // The manifest writes dynamic dimensions as -1.
      SmallVector<int64_t> shape(view.getShape());
      for (int64_t &dim : shape)
        if (ShapedType::isDynamic(dim))
          dim = -1;
      SmallVector<NamedAttribute> desc = {
          b.getNamedAttr("kind", b.getStringAttr("view")),
          b.getNamedAttr("dtype",
                         b.getStringAttr(typeName(view.getElementType()))),
          b.getNamedAttr("shape", b.getDenseI64ArrayAttr(shape))};
      if (view.getDevices())
        desc.push_back(
            b.getNamedAttr("devices", b.getI64IntegerAttr(view.getDevices())));
      if (view.getFragments()) {
        desc.push_back(b.getNamedAttr("layout", b.getStringAttr("fragments")));
        // Bulk copies write whole tiles of columns: the launch must give a
        // multiple of their widths (static columns are checked already).
        int64_t tileCols = 1;
        // (Views reach nested regions as block arguments numbered as the
        // kernel's, as the tensor-map walk below assumes too.)
        kernel.walk([&](StoreAsyncOp store) {
          if (cast<BlockArgument>(store.getDst()).getArgNumber() == i)
            tileCols = std::lcm(
                tileCols,
                cast<SharedVecType>(store.getSrc().getType()).getLength() / 64);
        });
        if (tileCols > 1 && ShapedType::isDynamic(view.getShape().back()))
          desc.push_back(
              b.getNamedAttr("tile_cols", b.getI64IntegerAttr(tileCols)));
      }
      if (auto aligned = kernel->getAttrOfType<DenseI64ArrayAttr>(kRowAligned);
          aligned && llvm::is_contained(aligned.asArrayRef(), int64_t(i)))
        desc.push_back(
            b.getNamedAttr("row_alignment", b.getI64IntegerAttr(16)));
      params.push_back(b.getDictionaryAttr(desc));
      continue;
    }
    Type type = arg.getType();
    // Booleans travel as i32 (PTX has no predicate parameters); index as i64.
    Type passed = type.isInteger(1) ? Type(b.getI32Type())
                  : type.isIndex()  ? Type(b.getI64Type())
                                    : type;
    paramTypes.push_back(passed);
    abi.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("kind", b.getStringAttr("scalar")),
         b.getNamedAttr("param", b.getI64IntegerAttr(i)),
         b.getNamedAttr("type", b.getStringAttr(typeName(passed)))}));
    SmallVector<NamedAttribute> desc = {
        b.getNamedAttr("kind", b.getStringAttr("scalar")),
        b.getNamedAttr("dtype", b.getStringAttr(typeName(type)))};
    // A parameter tile-bind folded: the launch must pass this value.
    if (Attribute bound = kernel.getArgAttr(i, kBoundAttr))
      desc.push_back(b.getNamedAttr("value", bound));
    params.push_back(b.getDictionaryAttr(desc));
  }

  // Shared-memory offsets on the allocs, and the dynamic tile queue's.
  int64_t queueOffset = -1;
  int64_t smem = kernel.getSharedMemoryBytes(
      [&](AllocOp alloc, int64_t off) {
        alloc->setAttr(kSmemOffset, b.getI64IntegerAttr(off));
      },
      &queueOffset);
  // A dynamic tile loop's counter: a hidden pointer the runtime provides.
  bool dynamicTiles =
      queueOffset >= 0 && kernel.getGrid() == GridPolicy::persistent;
  int64_t counterParam = -1;
  if (dynamicTiles) {
    counterParam = paramTypes.size();
    paramTypes.push_back(ptrGlobal);
    abi.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("kind", b.getStringAttr("tile_counter"))}));
  }
  // A table tile loop's schedule: a hidden pointer the runtime provides.
  int64_t tableParam = -1;
  if (kernel.hasTableTiles() && kernel.getGrid() == GridPolicy::persistent) {
    tableParam = paramTypes.size();
    paramTypes.push_back(ptrGlobal);
    abi.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("kind", b.getStringAttr("tile_table"))}));
  }

  // A kernel with multi-device views: the launch's own device index and the
  // device count, hidden i32 parameters the runtime provides.
  int64_t deviceIdParam = -1;
  if (multiDevice) {
    deviceIdParam = paramTypes.size();
    for (StringRef kind : {"device_id", "device_count"}) {
      paramTypes.push_back(b.getI32Type());
      abi.push_back(
          b.getDictionaryAttr({b.getNamedAttr("kind", b.getStringAttr(kind))}));
    }
    kernel.walk([&](DeviceIdOp op) {
      op->setAttr(kDeviceIdParam, b.getI64IntegerAttr(deviceIdParam));
    });
    kernel.walk([&](DeviceCountOp op) {
      op->setAttr(kDeviceCountParam, b.getI64IntegerAttr(deviceIdParam + 1));
    });
  }

  // TMA descriptors, one per distinct (view, box, swizzle) — and per device
  // of a multi-device view —, after the rest.
  SmallVector<TmaKey> tmas;
  SmallVector<int64_t> tmaParams;
  int64_t tmaCount = 0;
  kernel.walk([&](Operation *op) {
    Value view;
    Type buffer;
    if (auto load = dyn_cast<LoadAsyncOp>(op)) {
      view = load.getSrc();
      buffer = load.getDst().getType();
    } else if (auto store = dyn_cast<StoreAsyncOp>(op);
               store && !store.getDst().getType().getFragments()) {
      // (A view in fragment order takes bulk copies: no tensor map.)
      view = store.getDst();
      buffer = store.getSrc().getType();
    } else if (auto prefetch = dyn_cast<PrefetchOp>(op);
               prefetch && target.vendor == tk::Vendor::nvidia) {
      // (AMD drops prefetches: no tensor map.)
      view = prefetch.getSrc();
    }
    if (!view)
      return;
    auto arg = cast<BlockArgument>(view);
    unsigned rank = cast<GlobalType>(view.getType()).getShape().size();
    TmaKey key{arg.getArgNumber(), {}, 0};
    if (auto prefetch = dyn_cast<PrefetchOp>(op))
      key.box = prefetchBox(prefetch);
    else
      key.box = getTmaBox(buffer, rank, key.swizzle);
    // A multicast load copies 1/C of the rows from each block of the cluster.
    if (auto load = dyn_cast<LoadAsyncOp>(op); load && load.getMulticast())
      key.box[rank - 2] /= clusterBlocks(op);
    auto *it = llvm::find(tmas, key);
    int64_t param;
    if (it == tmas.end()) {
      param = paramTypes.size() + tmaCount;
      tmaCount += copiesOf(view.getType());
      tmas.push_back(key);
      tmaParams.push_back(param);
    } else {
      param = tmaParams[it - tmas.begin()];
    }
    op->setAttr(kTmaParam, b.getI64IntegerAttr(param));
  });
  for (const TmaKey &key : tmas) {
    auto view = cast<GlobalType>(body.getArgument(key.view).getType());
    for (int64_t k = 0; k < copiesOf(view); ++k) {
      paramTypes.push_back(LLVM::LLVMPointerType::get(ctx));
      SmallVector<NamedAttribute> entry = {
          b.getNamedAttr("kind", b.getStringAttr("tensor_map")),
          b.getNamedAttr("param", b.getI64IntegerAttr(key.view)),
          b.getNamedAttr("box", b.getDenseI64ArrayAttr(key.box)),
          b.getNamedAttr("swizzle", b.getI64IntegerAttr(key.swizzle)),
          b.getNamedAttr("dtype",
                         b.getStringAttr(typeName(view.getElementType())))};
      if (view.getDevices())
        entry.push_back(b.getNamedAttr("device", b.getI64IntegerAttr(k)));
      abi.push_back(b.getDictionaryAttr(entry));
    }
  }

  // Record view parameters on the ops (and, for a multi-device view, its
  // copies and where the launch's own device index is).
  for (BlockArgument arg : body.getArguments())
    if (viewParam[arg.getArgNumber()] >= 0)
      for (Operation *user : arg.getUsers()) {
        user->setAttr(kViewParam,
                      b.getI64IntegerAttr(viewParam[arg.getArgNumber()]));
        if (int64_t copies = copiesOf(arg.getType()); copies > 1) {
          user->setAttr(kViewCopies, b.getI64IntegerAttr(copies));
          user->setAttr(kDeviceIdParam, b.getI64IntegerAttr(deviceIdParam));
        }
      }
  int64_t producers = 0;
  kernel.walk([&](WarpSpecializeOp ws) {
    producers = ws.getProducerWarpgroups();
    ws.getConsumer().walk([&](WarpgroupIdOp id) {
      id->setAttr(kRoleBase, b.getI64IntegerAttr(producers));
    });
    // A block barrier inside a role waits for the role's threads only.
    // Named barriers 14 (producers) and 15 (consumers); 1.. are the
    // warpgroups' own.
    // So do the counter signals, which one thread of the role issues. A
    // producer role run by the first warp of each warpgroup (ProducerWalk)
    // counts those warps only.
    auto roleBarriers = [&](Region &role, int64_t id, int64_t warpgroups,
                            int64_t base, bool firstWarpOnly = false) {
      auto barrier =
          b.getDenseI64ArrayAttr({id, (firstWarpOnly ? 32 : 128) * warpgroups});
      role.walk([&](Operation *op) {
        auto blockBarrier = dyn_cast<BarrierOp>(op);
        if (blockBarrier && blockBarrier.getScope() == Scope::block)
          op->setAttr(kRoleBarrier, barrier);
        if (isa<SignalAddOp, SignalWaitOp, DeviceBarrierOp>(op)) {
          op->setAttr(kRoleBarrier, barrier);
          op->setAttr(kRoleBase, b.getI64IntegerAttr(base));
        }
      });
    };
    // MMA turns (tile.mma_turn): named barriers from kFirstTurnBarrier.
    bool turns = false;
    ws.getConsumer().walk([&](MmaTurnOp turn) {
      turn->setAttr(kRoleBase, b.getI64IntegerAttr(producers));
      turn->setAttr(kTurns, b.getI64IntegerAttr(ws.getConsumerWarpgroups()));
      turns = true;
    });
    if (turns)
      ws->setAttr(kTurns, b.getI64IntegerAttr(ws.getConsumerWarpgroups()));
    roleBarriers(ws.getProducer(), 14, ws.getProducerWarpgroups(), 0,
                 !producerWalk(ws).allWarps);
    roleBarriers(ws.getConsumer(), 15, ws.getConsumerWarpgroups(), producers);
  });
  auto uniform = kernel->getAttrOfType<BoolAttr>(kUniformWarpgroupIdAttr);
  kernel.walk([&](WarpgroupIdOp id) {
    if (!id->hasAttr(kRoleBase))
      id->setAttr(kRoleBase, b.getI64IntegerAttr(0));
    if (uniform && !uniform.getValue())
      id->setAttr(kPerThread, b.getUnitAttr());
  });

  // Semaphores only sem_arrive signals can take one arrival per warp.
  auto allocOf = [](Value sem) -> Operation * {
    while (auto slot = sem.getDefiningOp<SlotOp>())
      sem = slot.getRing();
    return sem.getDefiningOp<AllocOp>();
  };
  llvm::SmallPtrSet<Operation *, 8> arrived, expected;
  kernel.walk([&](SemArriveOp op) { arrived.insert(allocOf(op.getSem())); });
  kernel.walk([&](SemExpectOp op) { expected.insert(allocOf(op.getSem())); });
  auto perWarp = [&](Value sem) {
    Operation *alloc = allocOf(sem);
    return alloc && arrived.contains(alloc) && !expected.contains(alloc);
  };
  kernel.walk([&](SemInitOp op) {
    if (perWarp(op.getSem()))
      op->setAttr(kPerWarp, b.getI64IntegerAttr(4));
  });
  kernel.walk([&](SemArriveOp op) {
    if (perWarp(op.getSem()))
      op->setAttr(kPerWarp, b.getI64IntegerAttr(4));
  });

  if (kernel.getGrid() == GridPolicy::persistent)
    kernel.walk([&](ForeachTileOp op) {
      op->setAttr("tk.persistent", b.getUnitAttr());
    });
  // Grid-level roles: the compute region's tile loops skip the
  // communicating blocks.
  int64_t communicationBlocks = 0;
  for (BlockRolesOp roles : kernel.getBody().getOps<BlockRolesOp>()) {
    communicationBlocks = roles.getBlocks();
    roles.getCompute().walk([&](ForeachTileOp op) {
      op->setAttr(kFirstBlock, b.getI64IntegerAttr(communicationBlocks));
    });
  }
  // A producer role that needs one warp only runs on the first warp of each
  // producer warpgroup (ProducerWalk: the others would only follow the
  // ring's waits; measured on H100, one of them fell two phases behind and
  // hung the attention forward about once in a thousand launches).
  kernel.walk([&](WarpSpecializeOp ws) {
    if (!producerWalk(ws).allWarps)
      ws->setAttr(kFirstWarpOnly, b.getUnitAttr());
  });
  // Warps that walk a dynamic tile loop (each reads every tile from the
  // queue and frees its slot).
  int64_t queueWarps = kernel.getNumWarps();
  if (dynamicTiles) {
    // The first thread of the block takes the tiles: the producer role must
    // run a tile loop, on its first warp only (the queue lets that warp run
    // tiles ahead of the others, further than a parity wait can tell).
    WalkResult bad = kernel.walk([&](WarpSpecializeOp ws) {
      ProducerWalk producer = producerWalk(ws);
      if (!producer.walks) {
        ws.emitOpError("with a 'dynamic' tile loop, the producer role must "
                       "run one too: its first thread takes the block's "
                       "tiles");
        return WalkResult::interrupt();
      }
      if (Operation *op = producer.allWarps) {
        op->emitOpError("cannot be lowered in the producer role of a kernel "
                        "with a 'dynamic' tile loop: only the role's first "
                        "warp runs it");
        return WalkResult::interrupt();
      }
      queueWarps -= (4 - 1) * ws.getProducerWarpgroups();
      return WalkResult::advance();
    });
    if (bad.wasInterrupted())
      return failure();
    kernel.walk([&](ForeachTileOp op) {
      op->setAttr(kTileQueue, b.getI64IntegerAttr(queueOffset));
      op->setAttr(kTileCounterParam, b.getI64IntegerAttr(counterParam));
    });
  }
  if (tableParam >= 0)
    kernel.walk([&](ForeachTileOp op) {
      op->setAttr(kTileTableParam, b.getI64IntegerAttr(tableParam));
    });
  // In clusters, foreach_tile hands out tiles per cluster.
  int64_t clusterSize = kernel.getClusterBlocks();
  // The ops that act on the whole cluster record its size (the kernel is
  // gone by the time they are rewritten).
  if (clusterSize > 1)
    kernel.walk([&](Operation *op) {
      auto load = dyn_cast<LoadAsyncOp>(op);
      auto arrive = dyn_cast<SemArriveOp>(op);
      if (isa<ForeachTileOp>(op) || (load && load.getMulticast()) ||
          (arrive && arrive.getCluster()))
        op->setAttr(kClusterBlocks, b.getI64IntegerAttr(clusterSize));
    });

  // The grid: how many tiles, for the launcher.
  SmallVector<Attribute> tiles;
  ForeachTileOp foreach;
  kernel.walk([&](ForeachTileOp op) {
    if (!foreach)
      foreach
        = op;
  });
  auto describeBounds = [&](ForeachTileOp op,
                            SmallVector<Attribute> &into) -> LogicalResult {
    for (Value bound : op.getBounds()) {
      FailureOr<Attribute> desc = describeBound(bound, b);
      if (failed(desc))
        return op.emitOpError(
            "tile-space bound must be a constant, an index parameter, "
            "'tile.device_count', a 'tile.dim' of a kernel parameter, "
            "'arith.ceildivui' of one by a constant, or 'arith.muli' of two "
            "such bounds, so the launcher can size the grid");
      into.push_back(*desc);
    }
    return success();
  };
  if (foreach && failed(describeBounds(foreach, tiles)))
    return failure();
  // One block per tile of the first loop: a later loop over another tile
  // space would leave tiles past the grid unrun (a persistent loop strides
  // over its own bounds, whatever the grid).
  if (foreach && kernel.getGrid() == GridPolicy::tiles) {
    WalkResult walked = kernel.walk([&](ForeachTileOp other) {
      if (other == foreach)
        return WalkResult::advance();
      SmallVector<Attribute> theirs;
      if (failed(describeBounds(other, theirs)))
        return WalkResult::interrupt();
      if (theirs != tiles) {
        other.emitOpError(
            "walks another tile space than the kernel's first tile loop; "
            "with grid = tiles the launch has one block per tile of the "
            "first, so give every tile loop the same bounds (or make the "
            "kernel persistent)");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (walked.wasInterrupted())
      return failure();
  }

  // The llvm.func kernel.
  OpBuilder builder(gpuModule.getBody(), gpuModule.getBody()->end());
  auto funcType =
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), paramTypes);
  auto func =
      LLVM::LLVMFuncOp::create(builder, loc, kernel.getSymName(), funcType);
  unsigned threads = 4 * target.warpSize * *kernel.getWarpgroups();
  bool amd = target.vendor == tk::Vendor::amd;
  if (amd) {
    func->setAttr(ROCDL::ROCDLDialect::getKernelFuncAttrName(),
                  b.getUnitAttr());
    func->setAttr(ROCDL::ROCDLDialect::getFlatWorkGroupSizeAttrName(),
                  b.getStringAttr(std::to_string(threads) + "," +
                                  std::to_string(threads)));
    func->setAttr(ROCDL::ROCDLDialect::getReqdWorkGroupSizeAttrName(),
                  b.getDenseI32ArrayAttr({int32_t(threads), 1, 1}));
  } else {
    func->setAttr("nvvm.kernel", b.getUnitAttr());
    func->setAttr("nvvm.maxntid",
                  b.getDenseI32ArrayAttr({int32_t(threads), 1, 1}));
    // setmaxnreg needs a register cap at entry: the blocks that share a
    // multiprocessor split its registers.
    func->setAttr("nvvm.minctasm",
                  b.getI32IntegerAttr(kernel.getBlocksPerMultiprocessor()));
  }
  if (clusterSize > 1)
    func->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                  b.getDenseI32ArrayAttr({int32_t(clusterSize), 1, 1}));
  for (size_t i = paramTypes.size() - tmaCount; i < paramTypes.size(); ++i) {
    func.setArgAttr(
        i, "llvm.byval",
        TypeAttr::get(LLVM::LLVMArrayType::get(b.getI8Type(), 128)));
    func.setArgAttr(i, "llvm.align", b.getI64IntegerAttr(64));
    func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                    b.getUnitAttr());
  }
  SmallVector<Location> argLocs(paramTypes.size(), loc);
  Block *entry = builder.createBlock(&func.getBody(), {}, paramTypes, argLocs);
  builder.setInsertionPointToStart(entry);
  if (dynamicTiles)
    initTileQueue(builder, loc, queueOffset, queueWarps);
  SmallVector<Value> replacements;
  int64_t next = 0;
  for (BlockArgument arg : body.getArguments()) {
    Type type = arg.getType();
    if (auto view = dyn_cast<GlobalType>(type)) {
      // A multi-device view stands for the launch's own copy.
      Value ptr = entry->getArgument(next);
      if (view.getDevices())
        ptr = selectAmong(builder, loc,
                          entry->getArguments().slice(next, copiesOf(view)),
                          entry->getArgument(deviceIdParam));
      next += copiesOf(view) + view.getShape().size();
      replacements.push_back(
          UnrealizedConversionCastOp::create(builder, loc, type, ptr)
              .getResult(0));
      continue;
    }
    Value param = entry->getArgument(next++);
    if (type.isInteger(1))
      param = arith::TruncIOp::create(builder, loc, type, param);
    else if (type.isIndex())
      param = arith::IndexCastOp::create(builder, loc, type, param);
    replacements.push_back(param);
  }
  Operation *ret = body.getTerminator();
  builder.setInsertionPoint(ret);
  entry->getOperations().splice(entry->end(), body.getOperations());
  for (auto [arg, value] : llvm::zip(body.getArguments(), replacements))
    arg.replaceAllUsesWith(value);
  builder.setInsertionPoint(ret);
  LLVM::ReturnOp::create(builder, loc, ValueRange{});
  ret->erase();

  SmallVector<int32_t, 3> cluster = {1, 1, 1};
  if (auto dims = kernel.getCluster())
    for (auto [i, d] : llvm::enumerate(*dims))
      cluster[i] = d;
  SmallVector<NamedAttribute> fields = {
      b.getNamedAttr("target", b.getStringAttr(target.name)),
      b.getNamedAttr("threads", b.getI64IntegerAttr(threads)),
      b.getNamedAttr(
          "shared_memory_bytes",
          b.getI64IntegerAttr(smem ? smem + target.sharedMemorySlack : 0)),
      b.getNamedAttr("grid_policy",
                     b.getStringAttr(stringifyGridPolicy(kernel.getGrid()))),
      b.getNamedAttr("tiles", b.getArrayAttr(tiles)),
      b.getNamedAttr("cluster", b.getDenseI32ArrayAttr(cluster)),
      b.getNamedAttr("blocks_per_sm",
                     b.getI64IntegerAttr(kernel.getBlocksPerMultiprocessor())),
      b.getNamedAttr("params", b.getArrayAttr(params)),
      b.getNamedAttr("abi", b.getArrayAttr(abi)),
  };
  // Blocks the launcher starts before the tile loops' persistent grid.
  if (communicationBlocks)
    fields.push_back(b.getNamedAttr("communication_blocks",
                                    b.getI64IntegerAttr(communicationBlocks)));
  DictionaryAttr desc = b.getDictionaryAttr(fields);
  kernel.erase();
  return desc;
}

FailureOr<gpu::GPUModuleOp>
tk::lower::lowerKernels(ModuleOp module, tk::Vendor vendor, StringRef pass,
                        llvm::function_ref<std::string(Operation *)> reason,
                        llvm::function_ref<LogicalResult(KernelOp)> prepare) {
  SmallVector<KernelOp> kernels(module.getOps<KernelOp>());
  if (kernels.empty())
    return gpu::GPUModuleOp();
  for (KernelOp kernel : kernels)
    if (getTargetInfo(kernel).vendor != vendor)
      return kernel.emitOpError("targets ")
             << getTargetInfo(kernel).name << "; " << pass << " lowers "
             << (vendor == tk::Vendor::nvidia ? "NVIDIA" : "AMD")
             << " targets only";
  for (KernelOp kernel : kernels)
    if (failed(checkLowerable(kernel, reason)) ||
        (prepare && failed(prepare(kernel))))
      return failure();

  OpBuilder builder(module.getBody(), module.getBody()->end());
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  builder.getUnitAttr());
  auto gpuModule =
      gpu::GPUModuleOp::create(builder, module.getLoc(), "tk_kernels");
  builder.setInsertionPointToStart(gpuModule.getBody());
  auto smemType = LLVM::LLVMArrayType::get(builder.getI8Type(), 0);
  LLVM::GlobalOp::create(builder, module.getLoc(), smemType,
                         /*isConstant=*/false, LLVM::Linkage::External,
                         kSmemSymbol, Attribute(), /*alignment=*/1024,
                         /*addrSpace=*/3);

  SmallVector<NamedAttribute> abis;
  for (KernelOp kernel : kernels) {
    std::string name = kernel.getSymName().str();
    FailureOr<DictionaryAttr> abi = lowerKernelSignature(kernel, gpuModule);
    if (failed(abi))
      return failure();
    abis.push_back(builder.getNamedAttr(name, *abi));
  }
  module->setAttr("tile.abi", builder.getDictionaryAttr(abis));
  return gpuModule;
}

/// Allows LLVM to fuse a float multiply with the add or subtract that uses
/// it (one fma, one rounding): the `contract` fast-math flag on both.
static void markContractable(gpu::GPUModuleOp gpuModule) {
  gpuModule.walk([](Operation *op) {
    if (isa<LLVM::FAddOp, LLVM::FSubOp, LLVM::FMulOp>(op)) {
      auto iface = cast<LLVM::FastmathFlagsInterface>(op);
      op->setAttr(iface.getFastmathAttrName(),
                  LLVM::FastmathFlagsAttr::get(
                      op->getContext(), iface.getFastmathAttr().getValue() |
                                            LLVM::FastmathFlags::contract));
    } else if (isa<arith::AddFOp, arith::SubFOp, arith::MulFOp>(op)) {
      auto iface = cast<arith::ArithFastMathInterface>(op);
      op->setAttr(
          iface.getFastMathAttrName(),
          arith::FastMathFlagsAttr::get(
              op->getContext(), iface.getFastMathFlagsAttr().getValue() |
                                    arith::FastMathFlags::contract));
    }
  });
}

LogicalResult tk::lower::convertTileOps(gpu::GPUModuleOp gpuModule,
                                        tk::Vendor vendor, bool contract,
                                        bool anchorMmaWaits) {
  MLIRContext *ctx = gpuModule.getContext();
  bool nvidia = vendor == tk::Vendor::nvidia;
  TileTypeConverter converter(ctx);
  RewritePatternSet patterns(ctx);
  ConversionTarget target(*ctx);
  target.addIllegalDialect<TileDialect>();
  target.addLegalDialect<LLVM::LLVMDialect, arith::ArithDialect,
                         gpu::GPUDialect>();
  if (nvidia)
    target.addLegalDialect<NVVM::NVVMDialect>();
  else
    target.addLegalDialect<ROCDL::ROCDLDialect>();
  target.addLegalOp<UnrealizedConversionCastOp>();
  // f32 exponentials and logarithms of the math dialect go to the
  // special-function unit like the tile ops' (Compute.cpp).
  target.addDynamicallyLegalOp<math::ExpOp, math::Exp2Op, math::LogOp>(
      [](Operation *op) { return !op->getResult(0).getType().isF32(); });
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       target);
  populateStructurePatterns(converter, patterns, nvidia);
  populateMemoryPatterns(converter, patterns, nvidia);
  populateComputePatterns(converter, patterns, nvidia, anchorMmaWaits);
  populateReductionPatterns(converter, patterns);
  populateExchangePatterns(converter, patterns);
  populateSignalPatterns(converter, patterns);
  if (nvidia)
    populateSyncPatterns(converter, patterns);
  else
    populateAMDPatterns(converter, patterns);
  if (failed(applyPartialConversion(gpuModule, target, std::move(patterns))))
    return failure();
  if (contract)
    markContractable(gpuModule);
  return success();
}
