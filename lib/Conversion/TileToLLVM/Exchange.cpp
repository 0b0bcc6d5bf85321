//===- Exchange.cpp - Work that crosses lanes and warps -------------------===//
//
// Reductions, scans and layout conversions whose elements live in several
// lanes or warps are written once over FragmentMap for both targets, in up
// to three stages: a thread's own registers; the lanes of a warp (shuffles:
// `shfl.sync` on NVIDIA, `ds_bpermute` on AMD); the warps of the value's
// scope, through a small shared-memory scratch. This file holds what the
// stages share — the scratch each exchanging op gets, the barriers around
// it, indexed shuffles — and the layout conversions; the reductions and
// scans that use it are in Reductions.cpp.
//
// The scratch: before a kernel's signature is lowered, every op whose
// exchange crosses warps gets its own `tile.alloc` (one slot per warpgroup
// for warpgroup-scope values, which the warpgroups run independently), so
// it is part of the kernel's shared memory and checked against the target's
// budget. An op writes its scratch between two barriers of its scope (the
// first keeps the writes behind the previous run's reads), then reads it:
//
//   %z = tile.col_sum %t : !tile.rt<64x64xf32, warpgroup, #tile.mma_acc> -> ...
//     adds of a thread's registers in one column, a butterfly over the 8
//     lanes holding other rows, then: bar.sync; st.shared partial ->
//     scratch[col][warp]; bar.sync; ld.shared scratch[col][0..3], added in
//     warp order (so every copy of the result is bit-identical)
//
// A conversion that keeps every element in its warp gathers each
// destination register with one indexed shuffle per source register it
// draws from; any other goes through the scratch.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

using namespace mlir;
using namespace tk::tile;
using namespace tk::lower;

namespace {

constexpr llvm::StringLiteral kScratchId = "tk.scratch_id";

Value idx(OpBuilder &b, Location loc, int64_t v) {
  return constIndex(b, loc, v);
}

/// Threads of the executing scope instance: a warpgroup or the block.
int64_t scratchInstances(KernelOp kernel, Scope scope) {
  return scope == Scope::warpgroup ? kernel.getWarpgroups().value_or(1) : 1;
}

/// A function of the lane bits that is linear over GF(2): f(l) = c XOR (XOR
/// of cols[i] for each set bit i of l). Every register layout places
/// elements by bit fields of the lane, so where one element comes from is
/// such a function of where it goes.
struct LaneLinear {
  int64_t c = 0;
  SmallVector<int64_t, 6> cols;

  int64_t at(int64_t lane) const {
    int64_t v = c;
    for (auto [i, col] : llvm::enumerate(cols))
      if (lane >> i & 1)
        v ^= col;
    return v;
  }

  static std::optional<LaneLinear> fit(ArrayRef<int64_t> values) {
    LaneLinear f;
    f.c = values[0];
    for (int64_t bit = 1; bit < int64_t(values.size()); bit *= 2)
      f.cols.push_back(values[bit] ^ f.c);
    for (auto [lane, v] : llvm::enumerate(values))
      if (f.at(lane) != v)
        return std::nullopt;
    return f;
  }

  Value emit(OpBuilder &b, Location loc, Value lane) const {
    Value v = idx(b, loc, c);
    for (auto [i, col] : llvm::enumerate(cols)) {
      if (!col)
        continue;
      Value bit = arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, lane, idx(b, loc, i)),
          idx(b, loc, 1));
      v = arith::XOrIOp::create(
          b, loc, v, arith::MulIOp::create(b, loc, bit, idx(b, loc, col)));
    }
    return v;
  }
};

/// For each destination register of a warp-local conversion: where its
/// element comes from, as linear functions of the lane (source lane and
/// source register).
struct InWarpPlan {
  SmallVector<LaneLinear> srcLane, srcReg;
  SmallVector<SmallVector<int64_t, 4>> regs; // the source registers used
};

/// The plan when every element stays in its warp and the movement is
/// lane-linear (every warp the same), else nullopt.
std::optional<InWarpPlan> planInWarp(const FragmentMap &src,
                                     const FragmentMap &dst) {
  int64_t lanes = dst.numLanes(), warps = dst.numWarps();
  if (src.numLanes() != lanes || src.numWarps() != warps ||
      !llvm::isPowerOf2_64(uint64_t(lanes)))
    return std::nullopt;
  // Per warp: element → (register, lane) of a source slot holding it.
  SmallVector<
      DenseMap<std::pair<int64_t, int64_t>, std::pair<int64_t, int64_t>>>
      held(warps);
  for (int64_t w = 0; w < warps; ++w)
    for (int64_t l = 0; l < lanes; ++l)
      for (int64_t r = 0; r < src.numRegs(); ++r)
        held[w].try_emplace(src.elementAt({r, l, w}), std::pair{r, l});
  InWarpPlan plan;
  for (int64_t r = 0; r < dst.numRegs(); ++r) {
    SmallVector<int64_t> fromLane(lanes), fromReg(lanes);
    for (int64_t w = 0; w < warps; ++w)
      for (int64_t l = 0; l < lanes; ++l) {
        auto it = held[w].find(dst.elementAt({r, l, w}));
        if (it == held[w].end())
          return std::nullopt;
        if (w == 0) {
          fromReg[l] = it->second.first;
          fromLane[l] = it->second.second;
        } else if (fromReg[l] != it->second.first ||
                   fromLane[l] != it->second.second) {
          return std::nullopt;
        }
      }
    auto lane = LaneLinear::fit(fromLane), reg = LaneLinear::fit(fromReg);
    if (!lane || !reg)
      return std::nullopt;
    plan.srcLane.push_back(*lane);
    plan.srcReg.push_back(*reg);
    SmallVector<int64_t, 4> used;
    for (int64_t v : fromReg)
      if (!llvm::is_contained(used, v))
        used.push_back(v);
    plan.regs.push_back(used);
  }
  return plan;
}

struct ConversionMaps {
  FragmentMap src, dst;
};

std::optional<ConversionMaps> conversionMaps(ConvertLayoutOp op) {
  FailureOr<FragmentMap> src =
      getScopeFragmentMap(cast<RegisterType>(op.getX().getType()));
  FailureOr<FragmentMap> dst =
      getScopeFragmentMap(cast<RegisterType>(op.getType()));
  if (failed(src) || failed(dst))
    return std::nullopt;
  return ConversionMaps{*src, *dst};
}

/// A layout conversion that keeps every element in its warp: each
/// destination register is gathered by one indexed shuffle per source
/// register it draws from, and a select by lane.
struct ConvertInWarp : OpConversionPattern<ConvertLayoutOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<ConversionMaps> maps = conversionMaps(op);
    if (!maps || sameFragments(op))
      return rewriter.notifyMatchFailure(op, "nothing to move");
    std::optional<InWarpPlan> plan = planInWarp(maps->src, maps->dst);
    if (!plan)
      return rewriter.notifyMatchFailure(op, "not warp-local");
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    Value lane = arith::RemUIOp::create(b, loc, threadIndex(b, loc),
                                        idx(b, loc, maps->dst.numLanes()));
    Type structType = getTypeConverter()->convertType(op.getType());
    Value result = LLVM::UndefOp::create(b, loc, structType);
    for (int64_t r = 0; r < maps->dst.numRegs(); ++r) {
      Value from = plan->srcLane[r].emit(b, loc, lane);
      Value which = plan->regs[r].size() > 1
                        ? plan->srcReg[r].emit(b, loc, lane)
                        : Value();
      Value gathered;
      for (int64_t s : plan->regs[r]) {
        Value v = shuffleIdx(
            b, loc, LLVM::ExtractValueOp::create(b, loc, adaptor.getX(), s),
            from);
        gathered =
            gathered
                ? arith::SelectOp::create(
                      b, loc,
                      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            which, idx(b, loc, s)),
                      v, gathered)
                      .getResult()
                : v;
      }
      result = LLVM::InsertValueOp::create(b, loc, result, gathered, r);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A layout conversion that moves elements between warps, through the op's
/// scratch: every thread writes the elements it holds at their (row, col),
/// the scope synchronizes, every thread reads the elements its new layout
/// gives it.
struct ConvertThroughScratch : OpConversionPattern<ConvertLayoutOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<ConversionMaps> maps = conversionMaps(op);
    if (!maps || !op->hasAttr(kScratchOffset))
      return rewriter.notifyMatchFailure(op, "no scratch");
    auto from = cast<RegisterType>(op.getX().getType());
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    Type element = from.getElementType();
    int64_t eb = elementBytes(element), cols = maps->src.getCols();
    Value scratch = exchangeScratch(b, loc, op, from.getScope());
    auto at = [&](Value row, Value col) {
      Value i = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, row, idx(b, loc, cols)), col);
      return offsetPtr(b, loc, scratch,
                       arith::MulIOp::create(b, loc, i, idx(b, loc, eb)));
    };
    auto plus = [&](Value v, int64_t c) {
      return arith::AddIOp::create(b, loc, v, idx(b, loc, c));
    };
    scopeBarrier(b, loc, op, from.getScope());
    Value zero = idx(b, loc, 0);
    auto [srcRow, srcCol] = threadOrigin(b, loc, maps->src, zero, zero);
    for (int64_t reg = 0; reg < maps->src.numRegs(); ++reg) {
      auto [dr, dc] = maps->src.elementAt({reg, 0, 0});
      LLVM::StoreOp::create(
          b, loc, LLVM::ExtractValueOp::create(b, loc, adaptor.getX(), reg),
          at(plus(srcRow, dr), plus(srcCol, dc)));
    }
    scopeBarrier(b, loc, op, from.getScope());
    auto [dstRow, dstCol] = threadOrigin(b, loc, maps->dst, zero, zero);
    Type structType = getTypeConverter()->convertType(op.getType());
    Value result = LLVM::UndefOp::create(b, loc, structType);
    for (int64_t reg = 0; reg < maps->dst.numRegs(); ++reg) {
      auto [dr, dc] = maps->dst.elementAt({reg, 0, 0});
      Value v = LLVM::LoadOp::create(b, loc, element,
                                     at(plus(dstRow, dr), plus(dstCol, dc)));
      result = LLVM::InsertValueOp::create(b, loc, result, v, reg);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Elements (of `bytes` each) of one instance's scratch for `op`, or 0.
int64_t scratchBytes(Operation *op) {
  auto mapOf = [](Type type) -> std::optional<FragmentMap> {
    FailureOr<FragmentMap> map = getScopeFragmentMap(cast<RegisterType>(type));
    if (failed(map))
      return std::nullopt;
    return *map;
  };
  if (isa<RowMaxOp, RowSumOp, ColMaxOp, ColSumOp, VecReduceOp>(op)) {
    Type in = op->getOperand(0).getType();
    std::optional<FragmentMap> map = mapOf(in);
    if (!map)
      return 0;
    bool alongRows = isa<RowMaxOp, RowSumOp>(op);
    int64_t kept = isa<VecReduceOp>(op) ? 1
                   : alongRows          ? map->getRows()
                                        : map->getCols();
    int64_t groups = warpsAcross(*map, alongRows);
    return groups > 1
               ? kept * groups *
                     elementBytes(cast<RegisterType>(in).getElementType())
               : 0;
  }
  if (auto scan = dyn_cast<CumsumOp>(op)) {
    std::optional<FragmentMap> map = mapOf(scan.getType());
    if (!map)
      return 0;
    bool alongCols = scan.getAxis() && *scan.getAxis() == Axis::row;
    int64_t smallest = 0;
    for (const FragmentMode &mode : map->modes(FragmentMap::Index::warp)) {
      int64_t stride = alongCols ? mode.colStride : mode.rowStride;
      if (stride && (!smallest || stride < smallest))
        smallest = stride;
    }
    // Block totals of the scanned axis in units of the fastest warp mode,
    // for every position along the other axis; summed in f32.
    return smallest ? map->getRows() * map->getCols() / smallest * 4 : 0;
  }
  if (auto convert = dyn_cast<ConvertLayoutOp>(op)) {
    std::optional<ConversionMaps> maps = conversionMaps(convert);
    if (!maps || maps->src.samePlacement(maps->dst) ||
        planInWarp(maps->src, maps->dst))
      return 0;
    return maps->src.getRows() * maps->src.getCols() *
           elementBytes(cast<RegisterType>(convert.getType()).getElementType());
  }
  return 0;
}

Scope scopeOf(Operation *op) {
  return cast<RegisterType>(op->getOperand(0).getType()).getScope();
}
} // namespace

int64_t tk::lower::warpsAcross(const FragmentMap &map, bool alongRows) {
  int64_t n = 1;
  for (const FragmentMode &mode : map.modes(FragmentMap::Index::warp))
    if ((alongRows ? mode.colStride : mode.rowStride) != 0)
      n *= mode.size;
  return n;
}

LogicalResult tk::lower::reserveExchangeScratch(KernelOp kernel) {
  MLIRContext *ctx = kernel.getContext();
  // After the kernel's own allocations: the scratch's 128-byte alignment
  // then wastes less than a 1024-byte-aligned tile after it would.
  Block &body = kernel.getBody().front();
  OpBuilder b(&body, body.begin());
  for (AllocOp alloc : body.getOps<AllocOp>())
    b.setInsertionPointAfter(alloc);
  int64_t scratch = 0, next = 0;
  kernel.walk([&](Operation *op) {
    int64_t bytes = scratchBytes(op);
    if (!bytes)
      return;
    int64_t instances = scratchInstances(kernel, scopeOf(op));
    int64_t words = (bytes + 3) / 4;
    SmallVector<int64_t, 2> shape;
    if (instances > 1)
      shape.push_back(instances);
    shape.push_back(words);
    auto type = SharedVecType::get(ctx, shape, Float32Type::get(ctx));
    auto alloc = AllocOp::create(b, op->getLoc(), type);
    scratch += type.getBytes();
    alloc->setAttr(kScratchId, b.getI64IntegerAttr(++next));
    op->setAttr(kScratchId, b.getI64IntegerAttr(next));
  });
  const tk::TargetInfo &target = getTargetInfo(kernel);
  int64_t bytes = kernel.getSharedMemoryBytes();
  if (bytes <= target.sharedMemoryBytes)
    return success();
  StringRef memory = target.vendor == tk::Vendor::amd ? "LDS" : "shared memory";
  if (scratch)
    return kernel.emitOpError("needs ")
           << bytes << " bytes of " << memory << " with the " << scratch
           << " bytes its exchanges between warps use; " << target.name
           << " has " << target.sharedMemoryBytes;
  return kernel.emitOpError("needs ")
         << bytes << " bytes of " << memory << "; " << target.name << " has "
         << target.sharedMemoryBytes;
}

void tk::lower::placeExchangeScratch(gpu::GPUModuleOp gpuModule) {
  DenseMap<int64_t, std::pair<IntegerAttr, int64_t>> places;
  Builder b(gpuModule.getContext());
  gpuModule.walk([&](AllocOp alloc) {
    if (auto id = alloc->getAttrOfType<IntegerAttr>(kScratchId))
      places[id.getInt()] = {
          alloc->getAttrOfType<IntegerAttr>(kSmemOffset),
          cast<SharedVecType>(alloc.getType()).getSlotBytes()};
  });
  gpuModule.walk([&](Operation *op) {
    if (isa<AllocOp>(op))
      return;
    if (auto id = op->getAttrOfType<IntegerAttr>(kScratchId)) {
      auto [offset, slot] = places.lookup(id.getInt());
      op->setAttr(kScratchOffset, offset);
      op->setAttr(kScratchSlot, b.getI64IntegerAttr(slot));
    }
  });
}

Value tk::lower::exchangeScratch(OpBuilder &b, Location loc, Operation *op,
                                 Scope scope) {
  Value base =
      sharedAt(b, loc, op->getAttrOfType<IntegerAttr>(kScratchOffset).getInt());
  if (scope != Scope::warpgroup)
    return base;
  Value wg = arith::DivUIOp::create(b, loc, threadIndex(b, loc),
                                    idx(b, loc, 4 * warpSize(b)));
  int64_t slot = op->getAttrOfType<IntegerAttr>(kScratchSlot).getInt();
  return offsetPtr(b, loc, base,
                   arith::MulIOp::create(b, loc, wg, idx(b, loc, slot)));
}

void tk::lower::scopeBarrier(OpBuilder &b, Location loc, Operation *op,
                             Scope scope) {
  // AMD has no barrier for part of a workgroup; its kernels run every wave
  // through the same ops (no warp roles), so the workgroup barrier serves.
  if (scope == Scope::warpgroup && !targetsAMD(b))
    warpgroupSync(b, loc);
  else
    blockBarrier(b, loc, op);
}

bool tk::lower::movesBetweenWarps(ConvertLayoutOp op) {
  return scratchBytes(op) != 0;
}

void tk::lower::populateExchangePatterns(TypeConverter &converter,
                                         RewritePatternSet &patterns) {
  // Never both apply: only conversions that leave a warp get a scratch.
  patterns.add<ConvertInWarp, ConvertThroughScratch>(converter,
                                                     patterns.getContext());
}
