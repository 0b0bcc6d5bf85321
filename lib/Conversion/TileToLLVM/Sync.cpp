//===- Sync.cpp - Semaphores (mbarriers), barriers, fences ----------------===//
#include "Common.h"

using namespace mlir;
using namespace tk::tile;
using namespace tk::lower;

/// "file:line:col" of the first file location in `loc`, or "".
static std::string sourcePosition(Location loc) {
  std::string text;
  loc->walk([&](Location inner) {
    if (auto file = dyn_cast<FileLineColLoc>(inner)) {
      text = (file.getFilename().getValue() + ":" + Twine(file.getLine()) +
              ":" + Twine(file.getColumn()))
                 .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return text;
}

/// Registers a timed wait of the kernel `kernel` at `loc` in the module's
/// kWaitSites list and returns its index, the site number its reports carry.
static int64_t addWaitSite(gpu::GPUModuleOp module, StringRef kernel,
                           Location loc, StringRef kind) {
  MLIRContext *ctx = module.getContext();
  SmallVector<Attribute> sites;
  if (auto known = module->getAttrOfType<ArrayAttr>(kWaitSites))
    llvm::append_range(sites, known);
  std::string where = sourcePosition(loc);
  NamedAttribute fields[] = {
      NamedAttribute(StringAttr::get(ctx, "kernel"),
                     StringAttr::get(ctx, kernel)),
      NamedAttribute(StringAttr::get(ctx, "location"),
                     StringAttr::get(ctx, where.empty() ? "unknown" : where)),
      NamedAttribute(StringAttr::get(ctx, "kind"), StringAttr::get(ctx, kind))};
  sites.push_back(DictionaryAttr::get(ctx, fields));
  module->setAttr(kWaitSites, ArrayAttr::get(ctx, sites));
  return sites.size() - 1;
}

/// Declares the module's report pointer (kWaitReport) when it has none: a
/// global the host sets to a buffer it can read after the launch failed (0:
/// none). The timed waits' assembly reads it by name.
static void declareWaitReport(OpBuilder &b, Location loc,
                              gpu::GPUModuleOp module) {
  if (module.lookupSymbol(kWaitReport))
    return;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  LLVM::GlobalOp::create(b, loc, b.getI64Type(), /*isConstant=*/false,
                         LLVM::Linkage::External, kWaitReport,
                         b.getI64IntegerAttr(0), /*alignment=*/8,
                         /*addrSpace=*/1);
}

/// The kernel module's wait time limit in milliseconds (kWaitTimeout,
/// convert-tile-to-nvvm's wait-timeout-ms), 0 when waits have none.
static int64_t waitTimeoutMs(gpu::GPUModuleOp module) {
  auto limit =
      module ? module->getAttrOfType<IntegerAttr>(kWaitTimeout) : IntegerAttr();
  return limit ? limit.getInt() : 0;
}

int64_t tk::lower::waitLimitMs(OpBuilder &b) {
  LLVM::LLVMFuncOp func = enclosingKernel(b);
  return waitTimeoutMs(func ? func->getParentOfType<gpu::GPUModuleOp>()
                            : gpu::GPUModuleOp());
}

/// The end of a timed wait's assembly, past its limit: see timedWaitPtx.
static std::string giveUpPtx(OpBuilder &b, Location loc, StringRef what,
                             StringRef address, bool address64,
                             StringRef kind) {
  LLVM::LLVMFuncOp func = enclosingKernel(b);
  auto module = func->getParentOfType<gpu::GPUModuleOp>();
  int64_t site = addWaitSite(module, func.getSymName(), loc, kind);
  declareWaitReport(b, loc, module);
  // The first active lane records (site, block, thread, what, address) in
  // the host's buffer when there is one: a u32 count, then 32-byte records
  // from byte 32, each marked written (its sixth word) last. Plain stores
  // and a system fence, no call: a vprintf call would make ptxas serialize
  // every wgmma of the kernel (C7510; the GEMM ran 8-15% slower). Then every
  // lane traps: the launch fails instead of hanging.
  std::string low = address64 ? "cvt.u32.u64 lo, " + address.str() + ";\n"
                              : "mov.u32 lo, " + address.str() + ";\n";
  return "{\n.reg .pred q;\n"
         ".reg .b32 m, lt, slot, site, blk, thr, lo;\n"
         ".reg .u64 buffer, at;\n"
         "activemask.b32 m;\n"
         "mov.u32 lt, %lanemask_lt;\n"
         "and.b32 m, m, lt;\n"
         "setp.ne.u32 q, m, 0;\n"
         "@q bra TK_GIVE_UP;\n"
         "ld.volatile.global.u64 buffer, [" +
         std::string(kWaitReport) +
         "];\n"
         "setp.eq.u64 q, buffer, 0;\n"
         "@q bra TK_GIVE_UP;\n"
         "atom.global.add.u32 slot, [buffer], 1;\n"
         "setp.ge.u32 q, slot, " +
         std::to_string(kWaitReportRecords) +
         ";\n"
         "@q bra TK_GIVE_UP;\n"
         "mul.wide.u32 at, slot, 32;\n"
         "add.u64 at, at, buffer;\n"
         "mov.u32 site, " +
         std::to_string(site) +
         ";\n"
         "mov.u32 blk, %ctaid.x;\n"
         "mov.u32 thr, %tid.x;\n" +
         low + "st.volatile.global.v4.u32 [at+32], {site, blk, thr, " +
         what.str() +
         "};\n"
         "st.volatile.global.u32 [at+48], lo;\n"
         "membar.sys;\n"
         "st.volatile.global.u32 [at+52], 1;\n"
         "membar.sys;\n"
         "TK_GIVE_UP:\n"
         "trap;\n"
         "}\n";
}

void tk::lower::mbarrierWait(OpBuilder &b, Location loc, Value sem,
                             Value phase) {
  Value parity = arith::AndIOp::create(b, loc, phase, constI32(b, loc, 1));
  Value address = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), sem);
  std::string tryWait =
      "mbarrier.try_wait.parity.shared::cta.b64 p, [$0], $1;\n";
  int64_t limitMs = waitLimitMs(b);
  if (limitMs <= 0) {
    inlinePtx(b, loc, {address, parity},
              "{\n.reg .pred p;\nTK_WAIT:\n" + tryWait + "@!p bra TK_WAIT;\n}",
              "r,r");
    return;
  }
  inlinePtx(b, loc, {address, parity},
            "{\n.reg .pred p;\n" +
                timedWaitPtx(b, loc, tryWait, "@p", "$1", "$0",
                             /*address64=*/false, "semaphore") +
                "}",
            "r,r");
}

std::string tk::lower::timedWaitPtx(OpBuilder &b, Location loc,
                                    StringRef attempt, StringRef done,
                                    StringRef what, StringRef address,
                                    bool address64, StringRef kind) {
  // After a first try that fails (a wait that succeeds at once reads no
  // timer), the loop reads %globaltimer (ns) between tries and gives up
  // after the limit.
  std::string exit = done.str() + " bra TK_WAIT_DONE;\n";
  return ".reg .u64 t0, t;\n" + attempt.str() + exit +
         "mov.u64 t0, %globaltimer;\n"
         "TK_WAIT:\n" +
         attempt.str() + exit +
         "mov.u64 t, %globaltimer;\n"
         "sub.u64 t, t, t0;\n"
         "setp.lt.u64 p, t, " +
         std::to_string(waitLimitMs(b) * 1000000) +
         ";\n"
         "@p bra TK_WAIT;\n" +
         giveUpPtx(b, loc, what, address, address64, kind) + "TK_WAIT_DONE:\n";
}

namespace {

/// Thread 0 of the block initialises each mbarrier of the array.
struct SemInitLowering : OpConversionPattern<SemInitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SemInitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value tid = threadIndex(rewriter, loc);
    Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        tid, constIndex(rewriter, loc, 0));
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
      Value tid = threadIndex(rewriter, loc);
      Value lane = arith::RemUIOp::create(rewriter, loc, tid,
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

/// The consumers' MMA turn: bar.sync on the warpgroup's own turn barrier
/// (take), bar.arrive on the next consumer's (pass).
struct MmaTurnLowering : OpConversionPattern<MmaTurnOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MmaTurnOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value index = consumerIndex(
        rewriter, loc, op->getAttrOfType<IntegerAttr>(kRoleBase).getInt());
    if (op.getAction() == TurnAction::take)
      turnTake(rewriter, loc, index);
    else
      turnPass(rewriter, loc, index,
               op->getAttrOfType<IntegerAttr>(kTurns).getInt());
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
  patterns.add<SemInitLowering, SemArriveLowering, ClusterSyncLowering,
               SemExpectLowering, SemWaitLowering, BarrierLowering,
               FenceLowering, MmaTurnLowering>(converter,
                                               patterns.getContext());
}
