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
    auto param = op->getAttrOfType<IntegerAttr>(kViewParam);
    if (!param)
      return rewriter.notifyMatchFailure(op, "view is not a kernel parameter");
    Value dim =
        kernelParam(op, param.getInt() + 1 + op.getIndexAttr().getInt());
    rewriter.replaceOp(op, toIndex(rewriter, op.getLoc(), dim));
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
    Value wg = arith::DivUIOp::create(
        rewriter, loc, threadIndex(rewriter, loc),
        constIndex(rewriter, loc, 4 * warpSize(rewriter)));
    rewriter.replaceOpWithNewOp<arith::SubIOp>(op, wg,
                                               constIndex(rewriter, loc, base));
    return success();
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
      Value first = arith::AddIOp::create(
          rewriter, loc, arith::MulIOp::create(rewriter, loc, xcd, full),
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
    scf::ForOp persistentLoop;
    if (op->hasAttr("tk.persistent")) {
      Value grid = gridSize(rewriter, loc);
      if (cluster)
        grid = arith::DivUIOp::create(
            rewriter, loc, grid, constIndex(rewriter, loc, cluster.getInt()));
      SmallVector<Value> zeros(sums.size(), constIndex(rewriter, loc, 0));
      persistentLoop = scf::ForOp::create(
          rewriter, loc, block, total, grid, zeros,
          [](OpBuilder &b, Location l, Value, ValueRange carried) {
            scf::YieldOp::create(b, l, carried);
          });
      insertBefore = persistentLoop.getBody()->getTerminator();
      rewriter.setInsertionPoint(insertBefore);
      linear = persistentLoop.getInductionVar();
      iteration = arith::DivUIOp::create(
          rewriter, loc, arith::SubIOp::create(rewriter, loc, linear, block),
          grid);
      for (auto [sum, carried] :
           llvm::zip(sums, persistentLoop.getRegionIterArgs()))
        rewriter.replaceOp(sum, carried);
    } else {
      Value inRange = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ult, dealt, total);
      auto guard = scf::IfOp::create(rewriter, loc, inRange,
                                     /*withElseRegion=*/false);
      insertBefore = guard.thenBlock()->getTerminator();
      rewriter.setInsertionPoint(insertBefore);
      linear = block;
      iteration = constIndex(rewriter, loc, 0);
      for (PrefixSumOp sum : sums)
        rewriter.replaceOp(sum, constIndex(rewriter, loc, 0));
    }
    SmallVector<Value> args =
        tileCoordinates(rewriter, loc, linear, bounds, op.getGroup());
    args.push_back(iteration);
    Block &body = op.getBody().front();
    // A summed value that is a tile coordinate is its value after inlining.
    for (Value &x : summed)
      if (auto arg = dyn_cast<BlockArgument>(x); arg && arg.getOwner() == &body)
        x = args[arg.getArgNumber()];
    rewriter.eraseOp(body.getTerminator());
    rewriter.inlineBlockBefore(&body, insertBefore, args);
    if (persistentLoop && !summed.empty()) {
      rewriter.setInsertionPoint(insertBefore);
      SmallVector<Value> next;
      for (auto [carried, x] :
           llvm::zip(persistentLoop.getRegionIterArgs(), summed))
        next.push_back(arith::AddIOp::create(rewriter, loc, carried, x));
      rewriter.modifyOpInPlace(insertBefore,
                               [&] { insertBefore->setOperands(next); });
    }
    rewriter.eraseOp(op);
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

/// Producer warpgroups take the `then` branch, consumers the `else`; each
/// sets its register budget first.
struct WarpSpecializeLowering : OpConversionPattern<WarpSpecializeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WarpSpecializeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value wg = arith::DivUIOp::create(rewriter, loc, threadIndex(rewriter, loc),
                                      constIndex(rewriter, loc, 128));
    Value isProducer = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ult, wg,
        constIndex(rewriter, loc, op.getProducerWarpgroups()));
    auto branch = scf::IfOp::create(rewriter, loc, isProducer,
                                    /*withElseRegion=*/true);
    auto fill = [&](Block *dest, Region &role, std::optional<uint32_t> regs,
                    NVVM::SetMaxRegisterAction action) {
      Operation *yield = dest->getTerminator();
      rewriter.setInsertionPoint(yield);
      if (regs)
        NVVM::SetMaxRegisterOp::create(rewriter, loc, *regs, action);
      Block &body = role.front();
      rewriter.eraseOp(body.getTerminator());
      rewriter.inlineBlockBefore(&body, yield);
    };
    fill(branch.thenBlock(), op.getProducer(), op.getProducerRegisters(),
         NVVM::SetMaxRegisterAction::decrease);
    fill(branch.elseBlock(), op.getConsumer(), op.getConsumerRegisters(),
         NVVM::SetMaxRegisterAction::increase);
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void tk::lower::populateStructurePatterns(TypeConverter &converter,
                                          RewritePatternSet &patterns,
                                          bool nvidia) {
  patterns.add<DimLowering, WarpgroupIdLowering, ForeachTileLowering>(
      converter, patterns.getContext());
  if (nvidia)
    patterns.add<ClusterRankLowering, WarpSpecializeLowering>(
        converter, patterns.getContext());
}
