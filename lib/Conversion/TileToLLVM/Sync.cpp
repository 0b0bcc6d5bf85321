//===- Sync.cpp - Semaphores (mbarriers), barriers, fences ----------------===//
#include "Common.h"

using namespace mlir;
using namespace tk::tile;
using namespace tk::lower;

void tk::lower::mbarrierWait(OpBuilder &b, Location loc, Value sem,
                             Value phase) {
  Value parity = arith::AndIOp::create(b, loc, phase, constI32(b, loc, 1));
  Value address = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), sem);
  inlinePtx(b, loc, {address, parity},
            "{\n.reg .pred p;\nTK_WAIT:\n"
            "mbarrier.try_wait.parity.shared::cta.b64 p, [$0], $1;\n"
            "@!p bra TK_WAIT;\n}",
            "r,r");
}

namespace {

/// Thread 0 of the block initialises each mbarrier of the array.
struct SemInitLowering : OpConversionPattern<SemInitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SemInitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        threadIndex(rewriter, loc),
                                        constIndex(rewriter, loc, 0));
    auto guard = scf::IfOp::create(rewriter, loc, first, false);
    rewriter.setInsertionPoint(guard.thenBlock()->getTerminator());
    int64_t scale = 1;
    if (auto perWarp = op->getAttrOfType<IntegerAttr>(kPerWarp))
      scale = perWarp.getInt();
    Value count = constI32(rewriter, loc, op.getCount() * scale);
    for (unsigned i = 0; i < op.getSem().getType().getCount(); ++i) {
      Value bar = adaptor.getSem();
      if (i)
        bar = offsetPtr(rewriter, loc, bar, constI64(rewriter, loc, 8 * i));
      NVVM::MBarrierInitOp::create(rewriter, loc, bar, count, Value{});
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// One arrival per warpgroup, after all its threads get here: either each
/// warp's first lane arrives (the mbarrier counts four per warpgroup), or,
/// for semaphores that are also expected on, a warpgroup barrier and one
/// thread.
struct SemArriveLowering : OpConversionPattern<SemArriveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SemArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // Arrive here, or on this semaphore in every block of the cluster.
    int64_t blocks = 1;
    if (auto cluster = op->getAttrOfType<IntegerAttr>(kClusterBlocks))
      blocks = cluster.getInt();
    auto arrive = [&](OpBuilder &b) {
      if (blocks == 1) {
        NVVM::MBarrierArriveOp::create(b, loc, b.getI64Type(),
                                       adaptor.getSem());
        return;
      }
      auto remote = LLVM::LLVMPointerType::get(b.getContext(), 7);
      for (int64_t rank = 0; rank < blocks; ++rank) {
        Value sem = NVVM::MapaOp::create(b, loc, remote, adaptor.getSem(),
                                         constI32(b, loc, rank));
        // Release at CTA scope, as for a local arrival: it orders this
        // thread's reads of the stage before the other block's copy into it.
        // A cluster-scope release measured 2.5x slower on H100 (GEMM).
        NVVM::MBarrierArriveOp::create(b, loc, Type{}, sem, Value{},
                                       NVVM::MemScopeKind::CTA);
      }
    };
    if (op->hasAttr(kPerWarp)) {
      Value lane =
          arith::RemUIOp::create(rewriter, loc, threadIndex(rewriter, loc),
                                 constIndex(rewriter, loc, 32));
      Value first =
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, lane,
                                constIndex(rewriter, loc, 0));
      auto guard = scf::IfOp::create(rewriter, loc, first, false);
      rewriter.setInsertionPoint(guard.thenBlock()->getTerminator());
      arrive(rewriter);
      rewriter.eraseOp(op);
      return success();
    }
    warpgroupSync(rewriter, loc);
    emitOncePerWarpgroup(rewriter, loc, arrive);
    rewriter.eraseOp(op);
    return success();
  }
};

/// One thread of the warpgroup arrives and announces the transaction bytes.
struct SemExpectLowering : OpConversionPattern<SemExpectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SemExpectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t bytes = op.getBytes();
    emitOncePerWarpgroup(rewriter, loc, [&](OpBuilder &b) {
      NVVM::MBarrierArriveExpectTxOp::create(
          b, loc, Type{}, adaptor.getSem(), constI32(b, loc, bytes),
          NVVM::MemScopeKindAttr::get(b.getContext(), NVVM::MemScopeKind::CTA),
          b.getBoolAttr(false), Value{});
    });
    rewriter.eraseOp(op);
    return success();
  }
};

/// Every thread waits for the phase with the given parity: a
/// `try_wait.parity` loop with the hardware's own time limit. (The upstream
/// nvvm op requires a suspend-time hint, which ptxas turns into a
/// NANOSLEEP on the retry path; measured on H100, a hand-off between two
/// consumer warpgroups per MMA ran 10-20% slower with it, GEMM and the
/// attention kernels the same either way.)
struct SemWaitLowering : OpConversionPattern<SemWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SemWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    mbarrierWait(rewriter, op.getLoc(), adaptor.getSem(), adaptor.getPhase());
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierLowering : OpConversionPattern<BarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    switch (op.getScope()) {
    case Scope::block:
      // Inside a role: the role's warpgroups only.
      blockBarrier(rewriter, loc, op);
      break;
    case Scope::warpgroup:
      warpgroupSync(rewriter, loc);
      break;
    case Scope::warp:
      NVVM::SyncWarpOp::create(rewriter, loc, constI32(rewriter, loc, -1));
      break;
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// barrier.cluster.arrive (release) + barrier.cluster.wait (acquire), by
/// every thread.
struct ClusterSyncLowering : OpConversionPattern<ClusterSyncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ClusterSyncOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    NVVM::ClusterArriveOp::create(rewriter, loc, rewriter.getUnitAttr());
    NVVM::ClusterWaitOp::create(rewriter, loc, rewriter.getUnitAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

struct FenceLowering : OpConversionPattern<FenceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FenceOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    switch (op.getKind()) {
    case FenceKind::sem_init:
      NVVM::FenceMbarrierInitOp::create(rewriter, loc);
      break;
    case FenceKind::async_proxy:
      NVVM::FenceProxyOp::create(
          rewriter, loc, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
      break;
    case FenceKind::block:
      NVVM::MembarOp::create(rewriter, loc, NVVM::MemScopeKind::CTA);
      break;
    }
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void tk::lower::populateSyncPatterns(TypeConverter &converter,
                                     RewritePatternSet &patterns) {
  patterns
      .add<SemInitLowering, SemArriveLowering, ClusterSyncLowering,
           SemExpectLowering, SemWaitLowering, BarrierLowering, FenceLowering>(
          converter, patterns.getContext());
}
