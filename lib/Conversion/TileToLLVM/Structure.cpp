//===- Structure.cpp - Tile loops, warp roles, dims -----------------------===//
#include "Common.h"

using namespace mlir;
using namespace tk::tile;
using namespace tk::lower;

namespace {

/// `tile.dim %A[i]` reads the i-th dimension parameter after the view's
/// pointer.
struct DimLowering : OpConversionPattern<DimOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DimOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op->hasAttr(kViewParam))
      return rewriter.notifyMatchFailure(op, "view is not a kernel parameter");
    Value dim = viewDimParam(op, op.getIndexAttr().getInt());
    rewriter.replaceOp(op, toIndex(rewriter, op.getLoc(), dim));
    return success();
  }
};

/// tile.device_id / tile.device_count: the hidden i32 parameter.
template <typename Op> struct DeviceQueryLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    StringRef attr =
        std::is_same_v<Op, DeviceIdOp> ? kDeviceIdParam : kDeviceCountParam;
    Value param =
        kernelParam(op, op->template getAttrOfType<IntegerAttr>(attr).getInt());
    rewriter.replaceOp(op, arith::IndexCastOp::create(rewriter, op.getLoc(),
                                                      rewriter.getIndexType(),
                                                      param));
    return success();
  }
};

/// The warpgroup's index in the block, less the first warpgroup of its role.
struct WarpgroupIdLowering : OpConversionPattern<WarpgroupIdOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WarpgroupIdOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t base = op->getAttrOfType<IntegerAttr>(kRoleBase).getInt();
    Value wg;
    if (!targetsAMD(rewriter) && !op->hasAttr(kPerThread)) {
      wg = arith::IndexCastUIOp::create(rewriter, loc, rewriter.getIndexType(),
                                        uniformWarpgroupIndex(rewriter, loc));
    } else {
      Value tid = threadIndex(rewriter, loc);
      wg = arith::DivUIOp::create(
          rewriter, loc, tid,
          constIndex(rewriter, loc, 4 * warpSize(rewriter)));
    }
    rewriter.replaceOpWithNewOp<arith::SubIOp>(op, wg,
                                               constIndex(rewriter, loc, base));
    return success();
  }
};

/// The block's index in the grid.
struct BlockIdLowering : OpConversionPattern<BlockIdOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BlockIdOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, blockIndex(rewriter, op.getLoc()));
    return success();
  }
};

/// The whole tile's rows: what is left of tile.part_rows after
/// tile-warp-specialize (which rewrites the ones it splits by rows) is a
/// tile every thread of the block computes rows of.
struct PartRowsLowering : OpConversionPattern<PartRowsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PartRowsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t rows = cast<RegTileType>(op.getTile()).getShape()[0];
    Value hi = arith::AddIOp::create(rewriter, op.getLoc(), adaptor.getRow(),
                                     constIndex(rewriter, op.getLoc(), rows));
    rewriter.replaceOp(op, {adaptor.getRow(), hi});
    return success();
  }
};

/// Division by a divisor that does not change inside a loop, as a multiply
/// and a shift (Granlund and Montgomery, "Division by invariant integers
/// using multiplication", theorem 4.2 with N = 31): for 1 <= d <= 2^31,
/// l = ceil(log2 d) and m = ceil(2^(31+l) / d) < 2^32, every n < 2^31 has
/// n / d = (n * m) >> (31 + l), a 32 x 32 -> 64-bit multiply. `build` goes
/// before the loop (one 64-bit division there); `div` inside replaces the
/// integer division ptxas would expand at every use (a reciprocal, a
/// conversion and corrections: about 25 dependent instructions). The caller
/// guarantees n < 2^31 and d <= 2^31.
struct InvariantDivisor {
  Value divisor, magic, shift; // index, i32, i32

  static InvariantDivisor build(OpBuilder &b, Location loc, Value d) {
    Type i64 = b.getI64Type();
    auto c64 = [&](int64_t v) {
      return arith::ConstantIntOp::create(b, loc, i64, v).getResult();
    };
    // d = 0 only when the loop runs no step: keep the arithmetic defined.
    Value d64 = arith::IndexCastUIOp::create(b, loc, i64, d);
    Value dd = arith::MaxUIOp::create(b, loc, d64, c64(1));
    // l = 64 - clz(d - 1): 0 for d = 1.
    Value clz = LLVM::CountLeadingZerosOp::create(
        b, loc, i64, arith::SubIOp::create(b, loc, dd, c64(1)), false);
    Value l = arith::SubIOp::create(b, loc, c64(64), clz);
    Value shift = arith::AddIOp::create(b, loc, l, c64(31));
    // ceil(2^(31+l) / d); 2^(31+l) + d - 1 < 2^63 + 2^31.
    Value pow = arith::ShLIOp::create(b, loc, c64(1), shift);
    Value magic = arith::DivUIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, pow,
                              arith::SubIOp::create(b, loc, dd, c64(1))),
        dd);
    // Both fit in 32 bits: fewer registers held across the loop.
    Type i32 = b.getI32Type();
    return {d, arith::TruncIOp::create(b, loc, i32, magic),
            arith::TruncIOp::create(b, loc, i32, shift)};
  }

  Value div(OpBuilder &b, Location loc, Value n) const {
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    // Zero-extended 32-bit factors: a widening 32-bit multiply.
    Value n32 = arith::IndexCastUIOp::create(b, loc, i32, n);
    Value wideN = arith::ExtUIOp::create(b, loc, i64, n32);
    Value wideMagic = arith::ExtUIOp::create(b, loc, i64, magic);
    Value product = arith::MulIOp::create(b, loc, wideN, wideMagic);
    Value q = arith::ShRUIOp::create(
        b, loc, product, arith::ExtUIOp::create(b, loc, i64, shift));
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), q);
  }
};

/// Coordinates of the `linear`-th tile: the first dimension fastest, or TK's
/// grouped order for 2-d spaces with `group`.
SmallVector<Value> tileCoordinates(OpBuilder &b, Location loc, Value linear,
                                   ValueRange bounds,
                                   std::optional<int64_t> group) {
  if (group && bounds.size() == 2) {
    // Walk `group` rows of tiles column by column, then the next group.
    Value tm = bounds[0], tn = bounds[1];
    Value g = constIndex(b, loc, *group);
    Value perGroup = arith::MulIOp::create(b, loc, g, tn);
    Value groupId = arith::DivUIOp::create(b, loc, linear, perGroup);
    Value firstM = arith::MulIOp::create(b, loc, groupId, g);
    Value left = arith::SubIOp::create(b, loc, tm, firstM);
    Value rows = arith::MinUIOp::create(b, loc, left, g);
    Value local = arith::RemUIOp::create(b, loc, linear, perGroup);
    Value m = arith::AddIOp::create(
        b, loc, firstM, arith::RemUIOp::create(b, loc, local, rows));
    Value n = arith::DivUIOp::create(b, loc, local, rows);
    return {m, n};
  }
  SmallVector<Value> coords;
  Value rest = linear;
  for (auto [i, bound] : llvm::enumerate(bounds)) {
    if (i + 1 == bounds.size()) {
      coords.push_back(rest);
      break;
    }
    coords.push_back(arith::RemUIOp::create(b, loc, rest, bound));
    rest = arith::DivUIOp::create(b, loc, rest, bound);
  }
  return coords;
}

/// The same coordinates (first dimension fastest) with divisions by
/// `divisors`, the bounds but the last prepared before the loop.
SmallVector<Value> tileCoordinates(OpBuilder &b, Location loc, Value linear,
                                   ArrayRef<InvariantDivisor> divisors) {
  SmallVector<Value> coords;
  Value rest = linear;
  for (const InvariantDivisor &d : divisors) {
    Value q = d.div(b, loc, rest);
    coords.push_back(arith::SubIOp::create(
        b, loc, rest, arith::MulIOp::create(b, loc, q, d.divisor)));
    rest = q;
  }
  coords.push_back(rest);
  return coords;
}

/// The persistent stream-K walk of `foreach_tile ... stream_k`: an scf.while
/// whose step runs one unit. With W blocks and T tiles of `kSteps` steps,
/// when T mod W > 0 and T > W the first D = (T / W - 1) W tiles run whole
/// (block b: b, b + W, ...), and the S = T - D others' S * kSteps steps are
/// cut into W contiguous ranges, block b's [b S k / W, (b + 1) S k / W).
/// Sets `linear`, `split` (kb, ke, slot) and `iteration` for the body,
/// which goes before the returned yield; its operands are (unit + 1, next
/// step, carried...). `carried` starts from `init` (the sums, then the
/// loop's iter_args); `results` are their values after the walk.
struct StreamKWalk {
  scf::YieldOp yield;
  Value linear, iteration;
  SmallVector<Value, 3> split;
  ValueRange carried, results;
};

StreamKWalk buildStreamKWalk(OpBuilder &b, Location loc, Value block,
                             Value total, Value kSteps, ValueRange carried) {
  Value zero = constIndex(b, loc, 0), one = constIndex(b, loc, 1);
  Value grid = gridSize(b, loc);
  auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y).getResult();
  };
  auto sel = [&](Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y).getResult();
  };
  Value waves = arith::DivUIOp::create(b, loc, total, grid);
  Value hasWaves = cmp(arith::CmpIPredicate::ne, waves, zero);
  Value leftover = arith::RemUIOp::create(b, loc, total, grid);
  Value hasLeftover = cmp(arith::CmpIPredicate::ne, leftover, zero);
  Value partialWave = arith::AndIOp::create(b, loc, hasWaves, hasLeftover);
  Value ragged = arith::AndIOp::create(
      b, loc, partialWave, cmp(arith::CmpIPredicate::ne, kSteps, zero));
  Value whole =
      sel(ragged,
          arith::MulIOp::create(
              b, loc, arith::SubIOp::create(b, loc, waves, one), grid),
          total);
  Value work = arith::MulIOp::create(
      b, loc, arith::SubIOp::create(b, loc, total, whole), kSteps);
  Value start = arith::DivUIOp::create(
      b, loc, arith::MulIOp::create(b, loc, block, work), grid);
  Value end = arith::DivUIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, arith::AddIOp::create(b, loc, block, one),
                            work),
      grid);
  // Whole tiles of this block: ceil((whole - block) / grid) if positive.
  Value hasWhole = cmp(arith::CmpIPredicate::ugt, whole, block);
  Value wholeUnits =
      sel(hasWhole,
          arith::CeilDivUIOp::create(
              b, loc, arith::SubIOp::create(b, loc, whole, block), grid),
          zero);
  SmallVector<Value> init{zero, start};
  llvm::append_range(init, carried);
  SmallVector<Type> types(ValueRange(init).getTypes());
  auto loop = scf::WhileOp::create(b, loc, types, init);
  Block *before = b.createBlock(&loop.getBefore(), {}, types,
                                SmallVector<Location>(types.size(), loc));
  Value unit = before->getArgument(0), step = before->getArgument(1);
  Value wholeLeft = cmp(arith::CmpIPredicate::ult, unit, wholeUnits);
  Value more = arith::OrIOp::create(b, loc, wholeLeft,
                                    cmp(arith::CmpIPredicate::ult, step, end));
  scf::ConditionOp::create(b, loc, more, before->getArguments());
  Block *after = b.createBlock(&loop.getAfter(), {}, types,
                               SmallVector<Location>(types.size(), loc));
  unit = after->getArgument(0);
  step = after->getArgument(1);
  Value isWhole = cmp(arith::CmpIPredicate::ult, unit, wholeUnits);
  // (kSteps is 0 only when every unit is whole; divide by 1 then.)
  Value divisor = arith::MaxUIOp::create(b, loc, kSteps, one);
  Value splitTile = arith::DivUIOp::create(b, loc, step, divisor);
  Value first = arith::RemUIOp::create(b, loc, step, divisor);
  Value last = arith::MinUIOp::create(
      b, loc, kSteps,
      arith::AddIOp::create(b, loc, first,
                            arith::SubIOp::create(b, loc, end, step)));
  StreamKWalk walk;
  Value wholeTile = arith::AddIOp::create(
      b, loc, block, arith::MulIOp::create(b, loc, unit, grid));
  walk.linear =
      sel(isWhole, wholeTile, arith::AddIOp::create(b, loc, whole, splitTile));
  Value kb = sel(isWhole, zero, first);
  Value ke = sel(isWhole, kSteps, last);
  walk.split = {kb, ke, sel(isWhole, zero, splitTile)};
  walk.iteration = unit;
  walk.carried = after->getArguments().drop_front(2);
  walk.results = loop.getResults().drop_front(2);
  Value nextStep =
      sel(isWhole, step,
          arith::AddIOp::create(b, loc, step,
                                arith::SubIOp::create(b, loc, ke, kb)));
  SmallVector<Value> next{arith::AddIOp::create(b, loc, unit, one), nextStep};
  llvm::append_range(next, walk.carried);
  walk.yield = scf::YieldOp::create(b, loc, next);
  b.setInsertionPointAfter(loop);
  return walk;
}

/// The walk of `foreach_tile ... dynamic` (NVIDIA, persistent): an
/// scf.while whose step runs the tile the block's first thread took from
/// the tile counter. At step i, queue slot s = i mod D, round r = i / D: the
/// first thread waits until every warp has read the slot's previous tile
/// (empty[s] completes round r - 1), takes the next tile with a relaxed
/// device-scope add on counter[0], writes it to the slot and arrives on
/// full[s]; every thread waits for full[s]'s round r, reads the tile, and
/// each warp's first lane arrives on empty[s] once the warp has read it. The
/// loop ends at the first tile past the last. After it the first thread
/// counts its block out on counter[1]; the last block out zeroes both words
/// for the next launch (every block took its last tile before counting out).
/// The body goes before the returned yield, whose operands are (i + 1,
/// carried...); `carried` starts from `init` (the sums, then the loop's
/// iter_args), `results` are their values after the walk.
///
/// (Also the table walk's: its yield too leads with one value of its own.)
struct LeadWalk {
  scf::YieldOp yield;
  Value linear, iteration;
  ValueRange carried, results;
};

LeadWalk buildDynamicWalk(OpBuilder &b, Location loc, Operation *op,
                          Value total, ValueRange carriedInit) {
  int64_t queue = op->getAttrOfType<IntegerAttr>(kTileQueue).getInt();
  Value counter = kernelParam(
      op, op->getAttrOfType<IntegerAttr>(kTileCounterParam).getInt());
  Type i32 = b.getI32Type();
  Value zero = constIndex(b, loc, 0), one = constIndex(b, loc, 1);
  Value tid = threadIndex(b, loc);
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, zero);
  auto ifThen = [&](Value cond, function_ref<void()> body) {
    auto guard = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(guard.thenBlock()->getTerminator());
    body();
  };
  // (Inline PTX: LLVM's NVPTX back end prints plain `atom`, dropping the
  // acquire-release the count-out needs.)
  auto atomicAdd = [&](Value address, StringRef semantics) {
    return inlinePtx(
        b, loc, i32, address,
        ("atom." + semantics + ".gpu.global.add.u32 $0, [$1], 1;").str(),
        "=r,l");
  };

  // Carried: the step and the rest; out of the condition also the tile.
  SmallVector<Value> init{zero};
  llvm::append_range(init, carriedInit);
  SmallVector<Type> types(ValueRange(init).getTypes());
  SmallVector<Type> afterTypes{b.getIndexType()};
  llvm::append_range(afterTypes, types);
  auto loop = scf::WhileOp::create(b, loc, afterTypes, init);
  Block *before = b.createBlock(&loop.getBefore(), {}, types,
                                SmallVector<Location>(types.size(), loc));
  Value step = before->getArgument(0);
  Value depth = constIndex(b, loc, kTileQueueDepth);
  Value slot = toI64(b, loc, arith::RemUIOp::create(b, loc, step, depth));
  Value round = toI32(b, loc, arith::DivUIOp::create(b, loc, step, depth));
  Value base = sharedAt(b, loc, queue);
  auto entry = [&](int64_t at, int64_t bytes) {
    Value start = constI64(b, loc, at);
    Value offset = arith::AddIOp::create(
        b, loc, start,
        arith::MulIOp::create(b, loc, slot, constI64(b, loc, bytes)));
    return offsetPtr(b, loc, base, offset);
  };
  Value full = entry(0, 8), empty = entry(8 * kTileQueueDepth, 8);
  Value tileSlot = entry(16 * kTileQueueDepth, 4);
  ifThen(first, [&] {
    // Round r - 1 of empty[s]: parity r + 1 (a fresh mbarrier counts its
    // round -1 as complete).
    mbarrierWait(b, loc, empty,
                 arith::AddIOp::create(b, loc, round, constI32(b, loc, 1)));
    Value tile = atomicAdd(counter, "relaxed");
    LLVM::StoreOp::create(b, loc, tile, tileSlot);
    NVVM::MBarrierArriveOp::create(b, loc, b.getI64Type(), full);
  });
  mbarrierWait(b, loc, full, round);
  Value tile = LLVM::LoadOp::create(b, loc, i32, tileSlot);
  NVVM::SyncWarpOp::create(b, loc, constI32(b, loc, -1));
  Value lane = arith::RemUIOp::create(b, loc, tid, constIndex(b, loc, 32));
  ifThen(
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, zero),
      [&] { NVVM::MBarrierArriveOp::create(b, loc, b.getI64Type(), empty); });
  Value linear = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), tile);
  Value more =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, linear, total);
  SmallVector<Value> carried{step, linear};
  llvm::append_range(carried, before->getArguments().drop_front());
  scf::ConditionOp::create(b, loc, more, carried);

  Block *after = b.createBlock(&loop.getAfter(), {}, afterTypes,
                               SmallVector<Location>(afterTypes.size(), loc));
  LeadWalk walk;
  walk.iteration = after->getArgument(0);
  walk.linear = after->getArgument(1);
  walk.carried = after->getArguments().drop_front(2);
  walk.results = loop.getResults().drop_front(2);
  SmallVector<Value> next{arith::AddIOp::create(b, loc, walk.iteration, one)};
  llvm::append_range(next, walk.carried);
  walk.yield = scf::YieldOp::create(b, loc, next);

  b.setInsertionPointAfter(loop);
  ifThen(first, [&] {
    Value done = offsetPtr(b, loc, counter, constI64(b, loc, 4));
    Value out = atomicAdd(done, "acq_rel");
    Value last = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, out,
        toI32(b, loc, arith::SubIOp::create(b, loc, gridSize(b, loc), one)));
    ifThen(last, [&] {
      for (Value word : {counter, done})
        LLVM::StoreOp::create(b, loc, constI32(b, loc, 0), word);
    });
  });
  b.setInsertionPoint(walk.yield);
  return walk;
}

/// The walk of `foreach_tile ... table` (persistent): block b runs the
/// ordinals at words W + 1 + [table[b], table[b + 1]) of the launcher's
/// table, W the grid size; an scf.for over that range. Each step loads the
/// next step's ordinal, so its latency passes under the tile's work (the
/// table ends with a padding word, which the last step reads). The words
/// never change during the launch (invariant loads: the read-only path).
/// The body goes before the returned yield, whose operands are (next
/// ordinal, carried...); `carried` starts from `init`.
LeadWalk buildTableWalk(OpBuilder &b, Location loc, Operation *op, Value block,
                        ValueRange carriedInit) {
  Value table =
      kernelParam(op, op->getAttrOfType<IntegerAttr>(kTileTableParam).getInt());
  Type i32 = b.getI32Type();
  auto word = [&](Value at) -> Value {
    Value at64 = toI64(b, loc, at);
    Value address =
        offsetPtr(b, loc, table,
                  arith::MulIOp::create(b, loc, at64, constI64(b, loc, 4)));
    auto load = LLVM::LoadOp::create(b, loc, i32, address, /*alignment=*/4);
    load.setInvariant(true);
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), load);
  };
  Value one = constIndex(b, loc, 1);
  Value begin = word(block);
  Value end = word(arith::AddIOp::create(b, loc, block, one));
  // Words before the ordinals: the W + 1 offsets.
  Value ordinals = arith::AddIOp::create(b, loc, gridSize(b, loc), one);
  SmallVector<Value> init{word(arith::AddIOp::create(b, loc, ordinals, begin))};
  llvm::append_range(init, carriedInit);
  auto loop = scf::ForOp::create(
      b, loc, begin, end, one, init,
      [](OpBuilder &nb, Location l, Value, ValueRange carried) {
        scf::YieldOp::create(nb, l, carried);
      });
  LeadWalk walk;
  walk.yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  b.setInsertionPoint(walk.yield);
  Value i = loop.getInductionVar();
  walk.iteration = arith::SubIOp::create(b, loc, i, begin);
  walk.linear = loop.getRegionIterArgs().front();
  Value next = word(arith::AddIOp::create(
      b, loc, ordinals, arith::AddIOp::create(b, loc, i, one)));
  SmallVector<Value> yielded{next};
  llvm::append_range(yielded, loop.getRegionIterArgs().drop_front());
  walk.yield->setOperands(yielded);
  walk.carried = loop.getRegionIterArgs().drop_front();
  walk.results = loop.getResults().drop_front();
  return walk;
}

/// `grid = tiles`: block b runs tile b. `grid = persistent`: block b runs
/// tiles b, b + gridDim, ... The body is inlined with the coordinates and
/// the iteration count.
struct ForeachTileLowering : OpConversionPattern<ForeachTileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ForeachTileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ValueRange bounds = adaptor.getBounds();
    Value total = constIndex(rewriter, loc, 1);
    for (Value bound : bounds)
      total = arith::MulIOp::create(rewriter, loc, total, bound);
    Value block = blockIndex(rewriter, loc);
    // Under grid-level roles the first blocks communicate: the tiles go to
    // the others, renumbered from 0.
    auto firstBlock = op->getAttrOfType<IntegerAttr>(kFirstBlock);
    if (firstBlock)
      block = arith::SubIOp::create(
          rewriter, loc, block, constIndex(rewriter, loc, firstBlock.getInt()));
    // In cluster kernels the worker is the cluster: its blocks are
    // consecutive along x and share every tile.
    auto cluster = op->getAttrOfType<IntegerAttr>(kClusterBlocks);
    if (cluster)
      block = arith::DivUIOp::create(
          rewriter, loc, block, constIndex(rewriter, loc, cluster.getInt()));
    // AMD deals consecutive blocks to its chiplets (XCDs) round-robin, each
    // with its own L2: renumber so each chiplet runs a contiguous run of the
    // tile order (chiplet x gets blocks x, x + X, ... and the tiles
    // x * (total / X) + min(x, total % X) onwards).
    Value dealt = block;
    if (auto chiplets = op->getAttrOfType<IntegerAttr>(kChiplets);
        chiplets && !op->hasAttr("tk.persistent")) {
      Value x = constIndex(rewriter, loc, chiplets.getInt());
      Value xcd = arith::RemUIOp::create(rewriter, loc, block, x);
      Value local = arith::DivUIOp::create(rewriter, loc, block, x);
      Value full = arith::DivUIOp::create(rewriter, loc, total, x);
      Value extra = arith::RemUIOp::create(rewriter, loc, total, x);
      Value evenShare = arith::MulIOp::create(rewriter, loc, xcd, full);
      Value first = arith::AddIOp::create(
          rewriter, loc, evenShare,
          arith::MinUIOp::create(rewriter, loc, xcd, extra));
      block = arith::AddIOp::create(rewriter, loc, first, local);
    }
    Operation *insertBefore;
    Value linear, iteration;
    // tile.prefix_sum: a running sum carried by the persistent loop; with
    // one tile per block, 0.
    SmallVector<PrefixSumOp> sums(op.getBody().front().getOps<PrefixSumOp>());
    SmallVector<Value> summed;
    for (PrefixSumOp sum : sums)
      summed.push_back(sum.getX());
    // Carried by the walk: the sums (from 0), then the iter_args (built
    // with their tile types; the structural conversion converts them).
    Value zeroIndex = constIndex(rewriter, loc, 0);
    SmallVector<Value> carriedInit(sums.size(), zeroIndex);
    llvm::append_range(carriedInit, op.getInits());
    ValueRange carried, results;
    scf::IfOp once; // grid = tiles with iter_args: the guard's results
    scf::ForOp persistentLoop;
    Value fits; // i1: the tile indices are below 2^31 (with `divisors`)
    SmallVector<InvariantDivisor> divisors;
    SmallVector<Value, 3> split;
    Operation *streamKYield = nullptr;
    Value kSteps = adaptor.getKSteps();
    // The dynamic or table walk's yield (LeadWalk).
    Operation *leadYield = nullptr;
    // Prepares the divisions of the tile index by the bounds but the last
    // for a walk without `group` (InvariantDivisor), used while every tile
    // index is below 2^31.
    auto prepareDivisors = [&] {
      if (bounds.size() < 2 || op.getGroup())
        return;
      fits = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                   total, constIndex(rewriter, loc, 1LL << 31));
      for (Value bound : bounds.drop_back())
        divisors.push_back(InvariantDivisor::build(rewriter, loc, bound));
    };
    bool dynamic = op->hasAttr(kTileQueue);
    if ((dynamic || op->hasAttr(kTileTableParam)) &&
        op->hasAttr("tk.persistent")) {
      prepareDivisors();
      LeadWalk walk =
          dynamic ? buildDynamicWalk(rewriter, loc, op, total, carriedInit)
                  : buildTableWalk(rewriter, loc, op, block, carriedInit);
      insertBefore = leadYield = walk.yield;
      linear = walk.linear;
      iteration = walk.iteration;
      carried = walk.carried;
      results = walk.results;
    } else if (kSteps && op->hasAttr("tk.persistent")) {
      StreamKWalk walk =
          buildStreamKWalk(rewriter, loc, block, total, kSteps, carriedInit);
      insertBefore = streamKYield = walk.yield;
      rewriter.setInsertionPoint(insertBefore);
      linear = walk.linear;
      iteration = walk.iteration;
      split = walk.split;
      carried = walk.carried;
      results = walk.results;
    } else if (op->hasAttr("tk.persistent")) {
      Value grid = gridSize(rewriter, loc);
      if (firstBlock)
        grid = arith::SubIOp::create(
            rewriter, loc, grid,
            constIndex(rewriter, loc, firstBlock.getInt()));
      if (cluster)
        grid = arith::DivUIOp::create(
            rewriter, loc, grid, constIndex(rewriter, loc, cluster.getInt()));
      // Without `group` the loop counts this block's tiles, ceil((total -
      // block) / grid), so neither the iteration nor the tile needs a
      // division per step (the coordinates' divisors are prepared here,
      // when every tile index is below 2^31: InvariantDivisor). Grouped
      // walks (GEMM: long tiles, the divisor of the last group's rows
      // varies) keep the strided loop: counted, the GEMM measured 0.98x at
      // its largest shapes in two runs (docs/performance.md).
      Value zero = zeroIndex;
      auto carry = [](OpBuilder &b, Location l, Value, ValueRange carried) {
        scf::YieldOp::create(b, l, carried);
      };
      if (op.getGroup()) {
        persistentLoop = scf::ForOp::create(rewriter, loc, block, total, grid,
                                            carriedInit, carry);
        rewriter.setInsertionPoint(persistentLoop.getBody()->getTerminator());
        linear = persistentLoop.getInductionVar();
        iteration = arith::DivUIOp::create(
            rewriter, loc, arith::SubIOp::create(rewriter, loc, linear, block),
            grid);
      } else {
        Value hasTile = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::ugt, total, block);
        Value rounds = arith::CeilDivUIOp::create(
            rewriter, loc, arith::SubIOp::create(rewriter, loc, total, block),
            grid);
        Value steps =
            arith::SelectOp::create(rewriter, loc, hasTile, rounds, zero);
        prepareDivisors();
        persistentLoop = scf::ForOp::create(rewriter, loc, zero, steps,
                                            constIndex(rewriter, loc, 1),
                                            carriedInit, carry);
        rewriter.setInsertionPoint(persistentLoop.getBody()->getTerminator());
        iteration = persistentLoop.getInductionVar();
        linear = arith::AddIOp::create(
            rewriter, loc, block,
            arith::MulIOp::create(rewriter, loc, iteration, grid));
      }
      insertBefore = persistentLoop.getBody()->getTerminator();
      if (op.getSnake()) {
        // Odd rounds deal their w tiles to the blocks in reverse.
        Value start = arith::MulIOp::create(rewriter, loc, iteration, grid);
        Value width = arith::MinUIOp::create(
            rewriter, loc, grid,
            arith::SubIOp::create(rewriter, loc, total, start));
        Value end = arith::AddIOp::create(rewriter, loc, start, width);
        Value mirrored = arith::SubIOp::create(
            rewriter, loc, end,
            arith::AddIOp::create(rewriter, loc, block,
                                  constIndex(rewriter, loc, 1)));
        Value parity = arith::AndIOp::create(rewriter, loc, iteration,
                                             constIndex(rewriter, loc, 1));
        Value odd =
            arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne,
                                  parity, constIndex(rewriter, loc, 0));
        linear = arith::SelectOp::create(rewriter, loc, odd, mirrored, linear);
      }
      carried = persistentLoop.getRegionIterArgs();
      results = persistentLoop.getResults();
    } else {
      Value inRange = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ult, dealt, total);
      if (op.getInits().empty()) {
        auto guard = scf::IfOp::create(rewriter, loc, inRange,
                                       /*withElseRegion=*/false);
        insertBefore = guard.thenBlock()->getTerminator();
      } else {
        // The body runs at most once: the guard yields its values, or the
        // inits when this block has no tile.
        once = scf::IfOp::create(rewriter, loc, op.getResultTypes(), inRange,
                                 /*withElseRegion=*/true);
        rewriter.setInsertionPointToStart(once.elseBlock());
        scf::YieldOp::create(rewriter, loc, op.getInits());
        rewriter.setInsertionPointToStart(once.thenBlock());
        insertBefore = scf::YieldOp::create(rewriter, loc);
        results = once.getResults();
      }
      rewriter.setInsertionPoint(insertBefore);
      linear = block;
      iteration = constIndex(rewriter, loc, 0);
      for (PrefixSumOp sum : sums)
        rewriter.replaceOp(sum, constIndex(rewriter, loc, 0));
      if (kSteps) // One whole tile per block.
        split = {constIndex(rewriter, loc, 0), kSteps,
                 constIndex(rewriter, loc, 0)};
    }
    SmallVector<Value> args;
    if (fits) {
      // Beyond 2^31 tiles the divisions stay (a uniform branch per tile).
      SmallVector<Type> types(bounds.size(), rewriter.getIndexType());
      auto ifOp = scf::IfOp::create(rewriter, loc, types, fits,
                                    /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
      scf::YieldOp::create(rewriter, loc,
                           tileCoordinates(rewriter, loc, linear, divisors));
      rewriter.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(
          rewriter, loc,
          tileCoordinates(rewriter, loc, linear, bounds, op.getGroup()));
      args.assign(ifOp.getResults().begin(), ifOp.getResults().end());
    } else {
      args = tileCoordinates(rewriter, loc, linear, bounds, op.getGroup());
    }
    llvm::append_range(args, split);
    args.push_back(iteration);
    bool walks = persistentLoop || streamKYield || leadYield;
    if (walks) {
      for (auto [sum, value] : llvm::zip(sums, carried))
        rewriter.replaceOp(sum, value);
      llvm::append_range(args, carried.drop_front(sums.size()));
    } else {
      llvm::append_range(args, op.getInits());
    }
    Block &body = op.getBody().front();
    // A summed or yielded value that is a body argument is its value after
    // inlining.
    auto inlined = [&](Value x) {
      if (auto arg = dyn_cast<BlockArgument>(x); arg && arg.getOwner() == &body)
        return args[arg.getArgNumber()];
      return x;
    };
    for (Value &x : summed)
      x = inlined(x);
    SmallVector<Value> yielded;
    for (Value x : cast<YieldOp>(body.getTerminator()).getValues())
      yielded.push_back(inlined(x));
    rewriter.eraseOp(body.getTerminator());
    rewriter.inlineBlockBefore(&body, insertBefore, args);
    if (walks && !carried.empty()) {
      rewriter.setInsertionPoint(insertBefore);
      // The stream-K yield carries (unit, step) before the sums, the dynamic
      // walk's its step, the table walk's the next ordinal; the iter_args
      // follow the sums.
      unsigned skip = streamKYield ? 2 : leadYield ? 1 : 0;
      SmallVector<Value> next(insertBefore->getOperands().take_front(skip));
      for (auto [value, x] :
           llvm::zip(insertBefore->getOperands().drop_front(skip), summed))
        next.push_back(arith::AddIOp::create(rewriter, loc, value, x));
      llvm::append_range(next, yielded);
      rewriter.modifyOpInPlace(insertBefore,
                               [&] { insertBefore->setOperands(next); });
    } else if (once) {
      rewriter.modifyOpInPlace(insertBefore,
                               [&] { insertBefore->setOperands(yielded); });
    }
    if (op.getInits().empty())
      rewriter.eraseOp(op);
    else
      rewriter.replaceOp(op, results.drop_front(walks ? sums.size() : 0));
    return success();
  }
};

/// The block's rank in its cluster (x-major clusters [C, 1, 1]).
struct ClusterRankLowering : OpConversionPattern<ClusterRankOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ClusterRankOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value rank =
        NVVM::ClusterId::create(rewriter, op.getLoc(), rewriter.getI32Type());
    rewriter.replaceOp(op, toIndex(rewriter, op.getLoc(), rank));
    return success();
  }
};

/// Moves the body of a role (warp or block role; ends in tile.yield) before
/// `at`, its arguments replaced by `args`.
void inlineRole(ConversionPatternRewriter &rewriter, Region &role,
                Operation *at, ValueRange args) {
  Block &body = role.front();
  rewriter.eraseOp(body.getTerminator());
  rewriter.inlineBlockBefore(&body, at, args);
}

/// Producer warpgroups take the `then` branch, consumers the `else`; each
/// sets its register budget first. A producer role that needs one warp only
/// (kFirstWarpOnly) then runs on the first warp of each producer warpgroup.
struct WarpSpecializeLowering : OpConversionPattern<WarpSpecializeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WarpSpecializeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value tid = threadIndex(rewriter, loc);
    Value wg = arith::DivUIOp::create(rewriter, loc, tid,
                                      constIndex(rewriter, loc, 128));
    Value isProducer = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ult, wg,
        constIndex(rewriter, loc, op.getProducerWarpgroups()));
    auto branch = scf::IfOp::create(rewriter, loc, isProducer,
                                    /*withElseRegion=*/true);
    auto fill = [&](Block *dest, Region &role, std::optional<uint32_t> regs,
                    NVVM::SetMaxRegisterAction action, bool firstWarpOnly) {
      Operation *yield = dest->getTerminator();
      rewriter.setInsertionPoint(yield);
      if (regs)
        NVVM::SetMaxRegisterOp::create(rewriter, loc, *regs, action);
      if (firstWarpOnly) {
        Value thread = threadIndex(rewriter, loc);
        Value inWarpgroup = arith::RemUIOp::create(
            rewriter, loc, thread, constIndex(rewriter, loc, 128));
        Value firstWarp =
            arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                  inWarpgroup, constIndex(rewriter, loc, 32));
        auto guard = scf::IfOp::create(rewriter, loc, firstWarp,
                                       /*withElseRegion=*/false);
        yield = guard.thenBlock()->getTerminator();
        rewriter.setInsertionPoint(yield);
      }
      inlineRole(rewriter, role, yield, {});
    };
    fill(branch.thenBlock(), op.getProducer(), op.getProducerRegisters(),
         NVVM::SetMaxRegisterAction::decrease, op->hasAttr(kFirstWarpOnly));
    fill(branch.elseBlock(), op.getConsumer(), op.getConsumerRegisters(),
         NVVM::SetMaxRegisterAction::increase, /*firstWarpOnly=*/false);
    // Where the consumers' role starts: after their register raise.
    rewriter.setInsertionPointToStart(branch.elseBlock());
    if (op.getConsumerRegisters())
      rewriter.setInsertionPointAfter(&branch.elseBlock()->front());
    if (IntegerAttr stagger = op.getConsumerStaggerAttr();
        stagger && stagger.getInt() > 0) {
      // Consumer warpgroup i spins i * stagger cycles before its role.
      Value index = arith::SubIOp::create(
          rewriter, loc, wg,
          constIndex(rewriter, loc, op.getProducerWarpgroups()));
      Value index64 = arith::IndexCastUIOp::create(
          rewriter, loc, rewriter.getI64Type(), index);
      Value perIndex =
          arith::ConstantIntOp::create(rewriter, loc, stagger.getInt(), 64);
      Value cycles = arith::MulIOp::create(rewriter, loc, index64, perIndex);
      inlinePtx(rewriter, loc, cycles,
                "{\n.reg .pred p;\n.reg .u64 t0, t1;\n"
                "mov.u64 t0, %clock64;\nTK_STAGGER:\n"
                "mov.u64 t1, %clock64;\nsub.u64 t1, t1, t0;\n"
                "setp.lt.u64 p, t1, $0;\n@p bra TK_STAGGER;\n}",
                "l");
    }
    if (auto turns = op->getAttrOfType<IntegerAttr>(kTurns)) {
      // MMA turns: the last consumer passes the first its first turn once
      // it is past its stagger, and the first takes the last one passed
      // (after the role), so no arrival is left on a turn barrier.
      Value index = consumerIndex(rewriter, loc, op.getProducerWarpgroups());
      auto when = [&](int64_t consumer, auto body) {
        Value is =
            arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                  index, constI32(rewriter, loc, consumer));
        auto guard = scf::IfOp::create(rewriter, loc, is,
                                       /*withElseRegion=*/false);
        OpBuilder::InsertionGuard g(rewriter);
        rewriter.setInsertionPoint(guard.thenBlock()->getTerminator());
        body();
      };
      when(turns.getInt() - 1,
           [&] { turnPass(rewriter, loc, index, turns.getInt()); });
      // (Computed again, not kept live in a register across the role.)
      rewriter.setInsertionPoint(branch.elseBlock()->getTerminator());
      index = consumerIndex(rewriter, loc, op.getProducerWarpgroups());
      when(0, [&] { turnTake(rewriter, loc, index); });
    }
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

namespace {
/// Blocks below `blocks` take the communicate region (with their index and
/// the count as its arguments), the others the compute region.
struct BlockRolesLowering : OpConversionPattern<BlockRolesOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BlockRolesOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value block = blockIndex(rewriter, loc);
    Value count = constIndex(rewriter, loc, op.getBlocks());
    Value communicates = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ult, block, count);
    auto branch = scf::IfOp::create(rewriter, loc, communicates,
                                    /*withElseRegion=*/true);
    inlineRole(rewriter, op.getCommunicate(),
               branch.thenBlock()->getTerminator(), {block, count});
    inlineRole(rewriter, op.getCompute(), branch.elseBlock()->getTerminator(),
               {});
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void tk::lower::populateStructurePatterns(TypeConverter &converter,
                                          RewritePatternSet &patterns,
                                          bool nvidia) {
  patterns.add<DimLowering, DeviceQueryLowering<DeviceIdOp>,
               DeviceQueryLowering<DeviceCountOp>, WarpgroupIdLowering,
               BlockIdLowering, PartRowsLowering, ForeachTileLowering,
               BlockRolesLowering>(converter, patterns.getContext());
  if (nvidia)
    patterns.add<ClusterRankLowering, WarpSpecializeLowering>(
        converter, patterns.getContext());
}
