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
// Layout conversions and `tile.outer` are gathers: a destination register
// takes a source element in its row (the same one, or column col / B or
// col % B of `tile.outer`'s operands). A gather that keeps every element
// in its warp takes each register with one indexed shuffle per source
// register it draws from; any other goes through the scratch.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include <map>

using namespace mlir;
using namespace tk::tile;
using namespace tk::lower;

namespace {

constexpr llvm::StringLiteral kScratchId = "tk.scratch_id";

Value idx(OpBuilder &b, Location loc, int64_t v) {
  return constIndex(b, loc, v);
}

/// Copies of an op's scratch a kernel holds: one per warpgroup for
/// warpgroup-scope values (the warpgroups run them independently), else one.
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
      Value shifted = arith::ShRUIOp::create(b, loc, lane, idx(b, loc, i));
      Value bit = arith::AndIOp::create(b, loc, shifted, idx(b, loc, 1));
      v = arith::XOrIOp::create(
          b, loc, v, arith::MulIOp::create(b, loc, bit, idx(b, loc, col)));
    }
    return v;
  }
};

/// Which source element a gathered element takes: the one in the same row,
/// at the column `col` itself (a layout conversion), `col / divisor` or
/// `col % modulus` (the two operands of `tile.outer`); with `transpose`,
/// the one at (col, row) (`tile.transpose`).
struct Source {
  int64_t divisor = 1, modulus = 0;
  bool transpose = false;
  std::pair<int64_t, int64_t> of(std::pair<int64_t, int64_t> element) const {
    auto [row, col] = element;
    if (transpose)
      return {col, row};
    return {row, modulus ? col % modulus : col / divisor};
  }
  Value column(OpBuilder &b, Location loc, Value col) const {
    if (modulus)
      return arith::RemUIOp::create(b, loc, col, idx(b, loc, modulus));
    if (divisor != 1)
      return arith::DivUIOp::create(b, loc, col, idx(b, loc, divisor));
    return col;
  }
};

/// For each register of a warp-local gather: where its element comes from,
/// as linear functions of the lane (source lane and source register).
struct InWarpPlan {
  SmallVector<LaneLinear> srcLane, srcReg;
  SmallVector<SmallVector<int64_t, 4>> regs; // the source registers used
};

/// The plan when every element `dst` needs (through `source`) is held in
/// the needing lane's warp and the movement is lane-linear (every warp the
/// same), else nullopt.
std::optional<InWarpPlan>
planInWarp(const FragmentMap &src, const FragmentMap &dst, Source source = {}) {
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
        auto it = held[w].find(source.of(dst.elementAt({r, l, w})));
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

/// The registers of a warp-local gather from `x` (a struct of the source's
/// registers): each by one indexed shuffle per source register it draws
/// from, and a select by lane. Registers that draw alike share their
/// shuffles (`tile.outer`'s 64 x 256 result takes 128 registers from the
/// 16 elements of each row), and a register taken from the lane itself
/// needs none.
SmallVector<Value> gatherInWarp(OpBuilder &b, Location loc,
                                const InWarpPlan &plan, Value x,
                                int64_t lanes) {
  Value tid = threadIndex(b, loc);
  Value lane = arith::RemUIOp::create(b, loc, tid, idx(b, loc, lanes));
  using Key = std::tuple<int64_t, SmallVector<int64_t, 6>, int64_t,
                         SmallVector<int64_t, 6>, SmallVector<int64_t, 4>>;
  std::map<Key, Value> done;
  SmallVector<Value> result;
  for (auto [srcLane, srcReg, regs] :
       llvm::zip(plan.srcLane, plan.srcReg, plan.regs)) {
    Key key{srcLane.c, srcLane.cols, srcReg.c, srcReg.cols, regs};
    if (Value known = done[key]) {
      result.push_back(known);
      continue;
    }
    bool own = srcLane.c == 0 &&
               llvm::all_of(llvm::enumerate(srcLane.cols), [](auto bit) {
                 return bit.value() == int64_t(1) << bit.index();
               });
    Value from = own ? Value() : srcLane.emit(b, loc, lane);
    Value which = regs.size() > 1 ? srcReg.emit(b, loc, lane) : Value();
    Value gathered;
    for (int64_t s : regs) {
      Value v = LLVM::ExtractValueOp::create(b, loc, x, s);
      if (!own)
        v = shuffleIdx(b, loc, v, from);
      gathered =
          gathered ? arith::SelectOp::create(
                         b, loc,
                         arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                               which, idx(b, loc, s)),
                         v, gathered)
                         .getResult()
                   : v;
    }
    done[key] = gathered;
    result.push_back(gathered);
  }
  return result;
}

/// The registers of `dst` gathered from `x` (of map `src`) through the
/// scratch at `scratch`: every thread writes the elements it holds at their
/// (row, col), the scope synchronizes, every thread reads the ones its
/// registers take.
SmallVector<Value> gatherThroughScratch(OpBuilder &b, Location loc,
                                        Operation *op, Scope scope,
                                        Value scratch, const FragmentMap &src,
                                        Value x, const FragmentMap &dst,
                                        Source source, Type element) {
  int64_t eb = elementBytes(element), cols = src.getCols();
  auto at = [&](Value row, Value col) {
    Value i = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, row, idx(b, loc, cols)), col);
    return offsetPtr(b, loc, scratch,
                     arith::MulIOp::create(b, loc, i, idx(b, loc, eb)));
  };
  auto plus = [&](Value v, int64_t c) {
    return arith::AddIOp::create(b, loc, v, idx(b, loc, c));
  };
  scopeBarrier(b, loc, op, scope);
  Value zero = idx(b, loc, 0);
  auto [srcRow, srcCol] = threadOrigin(b, loc, src, zero, zero);
  for (int64_t reg = 0; reg < src.numRegs(); ++reg) {
    auto [dr, dc] = src.elementAt({reg, 0, 0});
    Value value = LLVM::ExtractValueOp::create(b, loc, x, reg);
    Value row = plus(srcRow, dr);
    Value col = plus(srcCol, dc);
    LLVM::StoreOp::create(b, loc, value, at(row, col));
  }
  scopeBarrier(b, loc, op, scope);
  auto [dstRow, dstCol] = threadOrigin(b, loc, dst, zero, zero);
  SmallVector<Value> result;
  for (int64_t reg = 0; reg < dst.numRegs(); ++reg) {
    auto [dr, dc] = dst.elementAt({reg, 0, 0});
    Value row = plus(dstRow, dr), col = plus(dstCol, dc);
    Value from =
        source.transpose ? at(col, row) : at(row, source.column(b, loc, col));
    result.push_back(LLVM::LoadOp::create(b, loc, element, from));
  }
  return result;
}

std::optional<FragmentMap> mapOf(Type type) {
  FailureOr<FragmentMap> map = getScopeFragmentMap(cast<RegisterType>(type));
  if (failed(map))
    return std::nullopt;
  return *map;
}

/// Bytes of scratch a gather of `dst` from `src` needs: none when it stays
/// in its warps, else the whole source.
int64_t gatherBytes(const FragmentMap &src, const FragmentMap &dst,
                    Source source, Type element) {
  if (planInWarp(src, dst, source))
    return 0;
  return src.getRows() * src.getCols() * elementBytes(element);
}

/// A gather's registers from `x`: in-warp shuffles when planned, else
/// through `op`'s scratch from byte `offset` on.
SmallVector<Value> gather(OpBuilder &b, Location loc, Operation *op,
                          const FragmentMap &src, Value x,
                          const FragmentMap &dst, Source source, Type element,
                          Scope scope, int64_t offset) {
  if (std::optional<InWarpPlan> plan = planInWarp(src, dst, source))
    return gatherInWarp(b, loc, *plan, x, dst.numLanes());
  Value base = exchangeScratch(b, loc, op, scope);
  Value scratch = offsetPtr(b, loc, base, idx(b, loc, offset));
  return gatherThroughScratch(b, loc, op, scope, scratch, src, x, dst, source,
                              element);
}

/// A register value gathered from `x`: a layout conversion that moves data
/// (each element from where the source layout holds it) or `tile.transpose`
/// (each from (col, row) of the source): by shuffles where the source's
/// warp holds it and the movement is lane-linear, else through the scratch
/// (written at the source's (row, col), read at the result's).
template <typename OpTy> struct GatherLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<FragmentMap> src = mapOf(op.getX().getType());
    std::optional<FragmentMap> dst = mapOf(op.getType());
    Source source;
    source.transpose = std::is_same_v<OpTy, TransposeOp>;
    if constexpr (std::is_same_v<OpTy, ConvertLayoutOp>)
      if (src && dst && sameFragments(op))
        return rewriter.notifyMatchFailure(op, "nothing to move");
    if (!src || !dst)
      return rewriter.notifyMatchFailure(op, "no fragment map");
    auto type = cast<RegisterType>(op.getType());
    SmallVector<Value> fields =
        gather(rewriter, op.getLoc(), op, *src, adaptor.getX(), *dst, source,
               type.getElementType(), type.getScope(), 0);
    rewriter.replaceOp(
        op, packStruct(rewriter, op.getLoc(),
                       this->getTypeConverter()->convertType(type), fields));
    return success();
  }
};

/// `tile.outer`: each result register gathers its lhs element (column
/// col / B) and its rhs element (column col % B), then multiplies them.
struct OuterLowering : OpConversionPattern<OuterOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OuterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<FragmentMap> lhs = mapOf(op.getLhs().getType());
    std::optional<FragmentMap> rhs = mapOf(op.getRhs().getType());
    std::optional<FragmentMap> dst = mapOf(op.getType());
    if (!lhs || !rhs || !dst)
      return rewriter.notifyMatchFailure(op, "no fragment maps");
    RegTileType type = op.getType();
    Type element = type.getElementType();
    Location loc = op.getLoc();
    Source ofLhs{rhs->getCols(), 0}, ofRhs{1, rhs->getCols()};
    SmallVector<Value> a = gather(rewriter, loc, op, *lhs, adaptor.getLhs(),
                                  *dst, ofLhs, element, type.getScope(), 0);
    SmallVector<Value> c =
        gather(rewriter, loc, op, *rhs, adaptor.getRhs(), *dst, ofRhs, element,
               type.getScope(), gatherBytes(*lhs, *dst, ofLhs, element));
    SmallVector<Value> fields =
        pairwise(rewriter, loc, a, c, [&](Value x, Value y) {
          return LLVM::FMulOp::create(rewriter, loc, x, y).getResult();
        });
    rewriter.replaceOp(op, packStruct(rewriter, loc,
                                      getTypeConverter()->convertType(type),
                                      fields));
    return success();
  }
};

/// Bytes of one copy of `op`'s scratch, or 0 when its data stays in
/// registers and lanes.
int64_t scratchBytes(Operation *op) {
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
    std::optional<FragmentMap> src = mapOf(convert.getX().getType());
    std::optional<FragmentMap> dst = mapOf(convert.getType());
    if (!src || !dst || src->samePlacement(*dst))
      return 0;
    return gatherBytes(*src, *dst, {},
                       cast<RegisterType>(convert.getType()).getElementType());
  }
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    std::optional<FragmentMap> src = mapOf(transpose.getX().getType());
    std::optional<FragmentMap> dst = mapOf(transpose.getType());
    if (!src || !dst)
      return 0;
    Source transposed;
    transposed.transpose = true;
    return gatherBytes(*src, *dst, transposed,
                       transpose.getType().getElementType());
  }
  if (auto outer = dyn_cast<OuterOp>(op)) {
    std::optional<FragmentMap> lhs = mapOf(outer.getLhs().getType());
    std::optional<FragmentMap> rhs = mapOf(outer.getRhs().getType());
    std::optional<FragmentMap> dst = mapOf(outer.getType());
    if (!lhs || !rhs || !dst)
      return 0;
    Type element = outer.getType().getElementType();
    return gatherBytes(*lhs, *dst, {rhs->getCols(), 0}, element) +
           gatherBytes(*rhs, *dst, {1, rhs->getCols()}, element);
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
  int64_t budget = kernel.getSharedMemoryBudget();
  if (bytes <= budget)
    return success();
  StringRef memory = target.vendor == tk::Vendor::amd ? "LDS" : "shared memory";
  if (scratch)
    return kernel.emitOpError("needs ")
           << bytes << " bytes of " << memory << " with the " << scratch
           << " bytes its exchanges between warps use; " << target.name
           << " has " << budget;
  return kernel.emitOpError("needs ") << bytes << " bytes of " << memory << "; "
                                      << target.name << " has " << budget;
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
  Value tid = threadIndex(b, loc);
  Value wg = arith::DivUIOp::create(b, loc, tid, idx(b, loc, 4 * warpSize(b)));
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

void tk::lower::populateExchangePatterns(TypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<GatherLowering<ConvertLayoutOp>, GatherLowering<TransposeOp>,
               OuterLowering>(converter, patterns.getContext());
}
