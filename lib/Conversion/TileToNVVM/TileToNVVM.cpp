//===- TileToNVVM.cpp - The tile → LLVM + NVVM lowering pass --------------===//
//
// Fixes each kernel's launch ABI, moves its body into an llvm.func inside
// `gpu.module @tk_kernels`, records the ABI for the manifest, then runs one
// dialect conversion over the tile ops (see Common.h).
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "tk/Conversion/Passes.h"
#include "tk/Target/TargetInfo.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/IRMapping.h"

namespace tk {
#define GEN_PASS_DEF_CONVERTTILETONVVM
#include "tk/Conversion/Passes.h.inc"
} // namespace tk

using namespace mlir;
using namespace tk::tile;
using namespace tk::nvvm;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

FailureOr<int64_t> tk::nvvm::getElementsPerThread(RegisterType type,
                                                  std::string &why) {
  if (type.getScope() == Scope::block) {
    why = "block-scope register values are not lowered yet; use warpgroup "
          "or warp scope";
    return failure();
  }
  FragmentMap map;
  if (failed(getFragmentMap(type, getScopeWarps(type.getScope()), map, why)))
    return failure();
  return map.numRegs();
}

FailureOr<FragmentMap> tk::nvvm::getScopeFragmentMap(RegisterType type) {
  FragmentMap map;
  std::string why;
  if (failed(getFragmentMap(type, getScopeWarps(type.getScope()), map, why)))
    return failure();
  return map;
}

void tk::nvvm::addModeOffsets(OpBuilder &b, Location loc,
                              ArrayRef<FragmentMode> modes, Value id,
                              Value &row, Value &col) {
  int64_t stride = 1;
  for (const FragmentMode &mode : modes) {
    Value digit = arith::RemUIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, id, constIndex(b, loc, stride)),
        constIndex(b, loc, mode.size));
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

std::pair<Value, Value> tk::nvvm::threadOrigin(OpBuilder &b, Location loc,
                                               const FragmentMap &map,
                                               Value row0, Value col0) {
  Value tid = threadIndex(b, loc);
  Value lane = arith::RemUIOp::create(b, loc, tid, constIndex(b, loc, 32));
  Value warp = arith::RemUIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, tid, constIndex(b, loc, 32)),
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

Value tk::nvvm::constI32(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 32);
}
Value tk::nvvm::constI64(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 64);
}
Value tk::nvvm::constIndex(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}
Value tk::nvvm::toI32(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isInteger(32))
    return v;
  if (v.getType().isIndex())
    return arith::IndexCastOp::create(b, loc, b.getI32Type(), v);
  return arith::TruncIOp::create(b, loc, b.getI32Type(), v);
}
Value tk::nvvm::toI64(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isInteger(64))
    return v;
  if (v.getType().isIndex())
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
  return arith::ExtUIOp::create(b, loc, b.getI64Type(), v);
}
Value tk::nvvm::toIndex(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isIndex())
    return v;
  return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v);
}
Value tk::nvvm::threadIndex(OpBuilder &b, Location loc) {
  return toIndex(b, loc, NVVM::ThreadIdXOp::create(b, loc, b.getI32Type()));
}
Value tk::nvvm::offsetPtr(OpBuilder &b, Location loc, Value ptr, Value offset) {
  return LLVM::GEPOp::create(b, loc, ptr.getType(), b.getI8Type(), ptr,
                             ValueRange{toI64(b, loc, offset)});
}
Value tk::nvvm::kernelParam(Operation *op, int64_t index) {
  auto func = op->getParentOfType<LLVM::LLVMFuncOp>();
  return func.getArgument(index);
}
void tk::nvvm::emitOncePerWarpgroup(
    OpBuilder &b, Location loc, llvm::function_ref<void(OpBuilder &)> body) {
  Value lane = arith::RemUIOp::create(b, loc, threadIndex(b, loc),
                                      constIndex(b, loc, 128));
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                      constIndex(b, loc, 0));
  auto ifOp = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body(b);
}
void tk::nvvm::warpgroupSync(OpBuilder &b, Location loc) {
  Value wg = arith::DivUIOp::create(b, loc, threadIndex(b, loc),
                                    constIndex(b, loc, 128));
  Value id =
      toI32(b, loc, arith::AddIOp::create(b, loc, wg, constIndex(b, loc, 1)));
  NVVM::BarrierOp::create(b, loc, /*res=*/Type{}, id, constI32(b, loc, 128),
                          /*reductionOp=*/NVVM::BarrierReductionAttr{},
                          /*reductionPredicate=*/Value{});
}
int64_t tk::nvvm::allocationRows(Value tile) {
  while (auto subtile = tile.getDefiningOp<SubtileOp>())
    tile = subtile.getSource();
  return cast<SharedTileType>(tile.getType()).getRows();
}
int64_t tk::nvvm::elementBytes(Type type) {
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
/// parameter, a dimension of a view parameter, or a ceiling division of one
/// by a constant.
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
  return failure();
}

/// Why the lowering cannot handle `op` yet, or "" when it can.
template <typename OpTy> std::string mmaUnsupportedReason(OpTy mma) {
  if (!isa<SharedTileType>(mma.getB().getType()))
    return "with a register B operand is not lowered yet; keep B in shared "
           "memory";
  if (auto a = dyn_cast<RegTileType>(mma.getA().getType());
      a && (!isa_and_nonnull<RowLayoutAttr>(a.getLayout()) ||
            a.getScope() != Scope::warpgroup ||
            !(a.getElementType().isBF16() || a.getElementType().isF16())))
    return "with a register A operand is lowered for bf16/f16 warpgroup "
           "tiles in #tile.row layout only";
  if (mma.getType().getScope() == Scope::block)
    return "at block scope is split over warpgroups by tile-warp-specialize; "
           "run it (or write warpgroup tiles) before lowering";
  ArrayRef<int64_t> d = mma.getType().getShape();
  if (d[0] != 64 || d[1] > 256)
    return "is lowered for 64 x N (N <= 256) warpgroup results only, got " +
           std::to_string(d[0]) + "x" + std::to_string(d[1]);
  return "";
}

std::string unsupportedReason(Operation *op) {
  if (auto mma = dyn_cast<MmaOp>(op))
    return mmaUnsupportedReason(mma);
  if (auto mma = dyn_cast<MmaAsyncOp>(op))
    return mmaUnsupportedReason(mma);
  if (isa<RowMaxOp, RowSumOp>(op))
    return reductionUnsupportedReason(
        cast<RegTileType>(op->getOperand(0).getType()), /*alongRows=*/true);
  if (isa<ColMaxOp, ColSumOp>(op))
    return reductionUnsupportedReason(
        cast<RegTileType>(op->getOperand(0).getType()), /*alongRows=*/false);
  if (isa<CopyOp>(op))
    return "is the synchronous naive form; run tile-pipeline (stages = 1 "
           "for a plain synchronous copy) before lowering";
  if (auto store = dyn_cast<StoreAsyncOp>(op))
    return store.getReduce() ? "with 'reduce add' is not lowered yet" : "";
  if (auto convert = dyn_cast<ConvertLayoutOp>(op))
    return sameFragments(convert)
               ? ""
               : "between layouts that move data is not lowered yet";
  if (auto load = dyn_cast<LoadOp>(op)) {
    Type src = load.getSrc().getType(), value = load.getType();
    if ((isa<SharedTileType>(src) && isa<RegTileType>(value)) ||
        (isa<GlobalType>(src) && isa<RegVecType>(value)))
      return "";
    return "is lowered for shared tiles to register tiles and global views "
           "to register vectors only";
  }
  if (auto store = dyn_cast<StoreOp>(op)) {
    Type value = store.getValue().getType(), dst = store.getDst().getType();
    if (isa<RegTileType>(value) && isa<GlobalType, SharedTileType>(dst))
      return "";
    if (isa<RegVecType>(value) && isa<GlobalType>(dst))
      return "";
    return "is lowered for register tiles to global or shared memory and "
           "register vectors to global memory only";
  }
  if (isa<KernelOp, ReturnOp, YieldOp, ForeachTileOp, WarpSpecializeOp,
          WarpgroupIdOp, ClusterRankOp, ClusterSyncOp, DimOp, AllocOp, SlotOp,
          SubtileOp, LoadAsyncOp, StoreAsyncWaitOp, SemInitOp, SemArriveOp,
          SemExpectOp, SemWaitOp, BarrierOp, FenceOp, FillOp, CastOp, AddOp,
          SubOp, MulOp, DivOp, MaxOp, MinOp, NegOp, AbsOp, Exp2Op, ExpOp, LogOp,
          BroadcastOp, MmaWaitOp, CausalMaskOp, BoundMaskOp>(op))
    return "";
  if (isa_and_nonnull<TileDialect>(op->getDialect()))
    return "is not lowered to NVVM yet";
  return "";
}

/// Checks the kernel is within what the lowering handles, with diagnostics
/// that say what to do.
LogicalResult checkLowerable(KernelOp kernel) {
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
    if (std::string why = unsupportedReason(op); !why.empty()) {
      op->emitOpError() << why;
      return WalkResult::interrupt();
    }
    for (Value v : op->getResults()) {
      auto type = dyn_cast<RegisterType>(v.getType());
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
FailureOr<DictionaryAttr> lowerKernelSignature(KernelOp kernel,
                                               gpu::GPUModuleOp gpuModule) {
  MLIRContext *ctx = kernel.getContext();
  Builder b(ctx);
  Location loc = kernel.getLoc();
  Block &body = kernel.getBody().front();
  const tk::TargetInfo &target = getTargetInfo(kernel);

  // Parameters: views (pointer + one i64 per dim) and scalars in order.
  SmallVector<Type> paramTypes;
  SmallVector<Attribute> abi, params;
  SmallVector<int64_t> viewParam(body.getNumArguments(), -1);
  auto ptrGlobal = LLVM::LLVMPointerType::get(ctx, 1);
  for (BlockArgument arg : body.getArguments()) {
    unsigned i = arg.getArgNumber();
    if (auto view = dyn_cast<GlobalType>(arg.getType())) {
      viewParam[i] = paramTypes.size();
      paramTypes.push_back(ptrGlobal);
      abi.push_back(b.getDictionaryAttr(
          {b.getNamedAttr("kind", b.getStringAttr("view_ptr")),
           b.getNamedAttr("param", b.getI64IntegerAttr(i))}));
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
      params.push_back(b.getDictionaryAttr(
          {b.getNamedAttr("kind", b.getStringAttr("view")),
           b.getNamedAttr("dtype",
                          b.getStringAttr(typeName(view.getElementType()))),
           b.getNamedAttr("shape", b.getDenseI64ArrayAttr(shape))}));
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
    params.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("kind", b.getStringAttr("scalar")),
         b.getNamedAttr("dtype", b.getStringAttr(typeName(type)))}));
  }

  // TMA descriptors, one per distinct (view, box, swizzle), after the rest.
  SmallVector<TmaKey> tmas;
  SmallVector<int64_t> tmaParams;
  kernel.walk([&](Operation *op) {
    Value view;
    Type buffer;
    if (auto load = dyn_cast<LoadAsyncOp>(op)) {
      view = load.getSrc();
      buffer = load.getDst().getType();
    } else if (auto store = dyn_cast<StoreAsyncOp>(op)) {
      view = store.getDst();
      buffer = store.getSrc().getType();
    }
    if (!view)
      return;
    auto arg = cast<BlockArgument>(view);
    unsigned rank = cast<GlobalType>(view.getType()).getShape().size();
    TmaKey key{arg.getArgNumber(), {}, 0};
    key.box = getTmaBox(buffer, rank, key.swizzle);
    // A multicast load copies 1/C of the rows from each block of the cluster.
    if (auto load = dyn_cast<LoadAsyncOp>(op); load && load.getMulticast())
      key.box[rank - 2] /= clusterBlocks(op);
    auto *it = llvm::find(tmas, key);
    int64_t param;
    if (it == tmas.end()) {
      param = paramTypes.size() + tmas.size();
      tmas.push_back(key);
      tmaParams.push_back(param);
    } else {
      param = tmaParams[it - tmas.begin()];
    }
    op->setAttr(kTmaParam, b.getI64IntegerAttr(param));
  });
  for (const TmaKey &key : tmas) {
    paramTypes.push_back(LLVM::LLVMPointerType::get(ctx));
    auto view = cast<GlobalType>(body.getArgument(key.view).getType());
    abi.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("kind", b.getStringAttr("tensor_map")),
         b.getNamedAttr("param", b.getI64IntegerAttr(key.view)),
         b.getNamedAttr("box", b.getDenseI64ArrayAttr(key.box)),
         b.getNamedAttr("swizzle", b.getI64IntegerAttr(key.swizzle)),
         b.getNamedAttr("dtype",
                        b.getStringAttr(typeName(view.getElementType())))}));
  }

  // Record view parameters and shared-memory offsets on the ops.
  for (BlockArgument arg : body.getArguments())
    if (viewParam[arg.getArgNumber()] >= 0)
      for (Operation *user : arg.getUsers())
        user->setAttr(kViewParam,
                      b.getI64IntegerAttr(viewParam[arg.getArgNumber()]));
  int64_t smem = kernel.getSharedMemoryBytes([&](AllocOp alloc, int64_t off) {
    alloc->setAttr(kSmemOffset, b.getI64IntegerAttr(off));
  });
  int64_t producers = 0;
  kernel.walk([&](WarpSpecializeOp ws) {
    producers = ws.getProducerWarpgroups();
    ws.getConsumer().walk([&](WarpgroupIdOp id) {
      id->setAttr(kRoleBase, b.getI64IntegerAttr(producers));
    });
  });
  kernel.walk([&](WarpgroupIdOp id) {
    if (!id->hasAttr(kRoleBase))
      id->setAttr(kRoleBase, b.getI64IntegerAttr(0));
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
  if (foreach) {
    for (Value bound : foreach.getBounds()) {
      FailureOr<Attribute> desc = describeBound(bound, b);
      if (failed(desc))
        return foreach.emitOpError(
            "tile-space bound must be a constant, an index parameter, a "
            "'tile.dim' of a kernel parameter or 'arith.ceildivui' of one by "
            "a constant, so the launcher can size the grid");
      tiles.push_back(*desc);
    }
  }

  // The llvm.func kernel.
  OpBuilder builder(gpuModule.getBody(), gpuModule.getBody()->end());
  auto funcType =
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), paramTypes);
  auto func =
      LLVM::LLVMFuncOp::create(builder, loc, kernel.getSymName(), funcType);
  unsigned threads = 4 * target.warpSize * *kernel.getWarpgroups();
  func->setAttr("nvvm.kernel", b.getUnitAttr());
  func->setAttr("nvvm.maxntid",
                b.getDenseI32ArrayAttr({int32_t(threads), 1, 1}));
  // setmaxnreg needs a register cap at entry: one block per multiprocessor.
  func->setAttr("nvvm.minctasm", b.getI32IntegerAttr(1));
  if (clusterSize > 1)
    func->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                  b.getDenseI32ArrayAttr({int32_t(clusterSize), 1, 1}));
  for (size_t i = paramTypes.size() - tmas.size(); i < paramTypes.size(); ++i) {
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
  SmallVector<Value> replacements;
  int64_t next = 0;
  for (BlockArgument arg : body.getArguments()) {
    Type type = arg.getType();
    if (auto view = dyn_cast<GlobalType>(type)) {
      Value ptr = entry->getArgument(next);
      next += 1 + view.getShape().size();
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
  DictionaryAttr desc = b.getDictionaryAttr({
      b.getNamedAttr("target", b.getStringAttr(target.name)),
      b.getNamedAttr("threads", b.getI64IntegerAttr(threads)),
      b.getNamedAttr("shared_memory_bytes",
                     b.getI64IntegerAttr(smem ? smem + kSmemAlignSlack : 0)),
      b.getNamedAttr("grid_policy",
                     b.getStringAttr(stringifyGridPolicy(kernel.getGrid()))),
      b.getNamedAttr("tiles", b.getArrayAttr(tiles)),
      b.getNamedAttr("cluster", b.getDenseI32ArrayAttr(cluster)),
      b.getNamedAttr("params", b.getArrayAttr(params)),
      b.getNamedAttr("abi", b.getArrayAttr(abi)),
  });
  kernel.erase();
  return desc;
}

struct ConvertTileToNVVMPass
    : public tk::impl::ConvertTileToNVVMBase<ConvertTileToNVVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SmallVector<KernelOp> kernels(module.getOps<KernelOp>());
    if (kernels.empty())
      return;
    for (KernelOp kernel : kernels)
      if (getTargetInfo(kernel).vendor != tk::Vendor::nvidia) {
        kernel.emitOpError("targets ")
            << getTargetInfo(kernel).name
            << "; convert-tile-to-nvvm lowers NVIDIA targets only";
        return signalPassFailure();
      }
    if (failed(checkAll(kernels)))
      return signalPassFailure();

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
        return signalPassFailure();
      abis.push_back(builder.getNamedAttr(name, *abi));
    }
    module->setAttr("tile.abi", builder.getDictionaryAttr(abis));

    TileTypeConverter converter(ctx);
    RewritePatternSet patterns(ctx);
    ConversionTarget target(*ctx);
    target.addIllegalDialect<TileDialect>();
    target.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect,
                           arith::ArithDialect, gpu::GPUDialect>();
    target.addLegalOp<UnrealizedConversionCastOp>();
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    populateStructurePatterns(converter, patterns);
    populateMemoryPatterns(converter, patterns);
    populateSyncPatterns(converter, patterns);
    populateComputePatterns(converter, patterns);
    populateReductionPatterns(converter, patterns);
    if (failed(applyPartialConversion(gpuModule, target, std::move(patterns))))
      return signalPassFailure();
  }

  LogicalResult checkAll(ArrayRef<KernelOp> kernels) {
    for (KernelOp kernel : kernels)
      if (failed(checkLowerable(kernel)))
        return failure();
    return success();
  }
};
} // namespace
