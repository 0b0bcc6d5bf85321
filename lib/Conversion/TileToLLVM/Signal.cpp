//===- Signal.cpp - Counters in global memory between blocks -------------===//
//
// tile.signal_add / tile.signal_wait for both targets: a barrier over the
// threads running the block's work, and one of them touching the counter
// with device-scope release (add) or acquire (poll); on a multi-device view
// (NVIDIA) at system scope, in the copy of the device the op names.
// tile.device_barrier (NVIDIA): both, once per block, over every device.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

using namespace mlir;
using namespace tk::tile;
using namespace tk::lower;

namespace {

/// `if (this is the first thread of the block's work) { body }`.
void onFirstThread(OpBuilder &b, Location loc, Operation *op,
                   function_ref<void(OpBuilder &)> body) {
  int64_t base = 0;
  if (auto attr = op->getAttrOfType<IntegerAttr>(kRoleBase))
    base = attr.getInt() * 4 * warpSize(b);
  Value tid = threadIndex(b, loc);
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                      constIndex(b, loc, base));
  auto guard = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPoint(guard.thenBlock()->getTerminator());
  body(b);
}

Value counterAddress(OpBuilder &b, Location loc, Value counters, Value index) {
  return LLVM::GEPOp::create(b, loc, counters.getType(), b.getI32Type(),
                             counters, ValueRange{toI64(b, loc, index)});
}

/// "sys" for counters in a multi-device view, else "gpu".
StringRef scopeOf(GlobalType counters) {
  return counters.getDevices() ? "sys" : "gpu";
}

/// Before a release that publishes the block's TMA stores (issued by one
/// thread per warpgroup): they must be written, not only have read shared
/// memory, and the proxy fence orders them (async proxy) before the
/// generic-proxy release. Nothing on AMD, whose stores are all ordinary.
void publishAsyncStores(OpBuilder &b, Location loc) {
  if (targetsAMD(b))
    return;
  emitOncePerWarpgroup(b, loc, [&](OpBuilder &b) {
    NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0, UnitAttr{});
    inlinePtx(b, loc, {}, "fence.proxy.async.global;", "");
  });
}

/// NVIDIA: adds `value` to the counter at `address` with release at
/// `scope`. Release is cumulative: it covers the writes the other threads
/// made before the barrier that precedes it.
void releaseAdd(OpBuilder &b, Location loc, Value address, Value value,
                StringRef scope) {
  inlinePtx(b, loc, {address, value},
            "red.release." + scope.str() + ".global.add.s32 [$0], $1;", "l,r");
}

/// NVIDIA: polls the counter at `address` with acquire at `scope` until it
/// equals `value` or, `atLeast`, is `value` or more as a signed difference
/// (wait while seen - value < 0). Under wait-timeout-ms a poll that fails
/// at first reads %globaltimer between tries and, past the limit, records
/// the wait (the value and the low 32 bits of the counter's address) and
/// traps, as the semaphore waits do: a peer that never signals fails the
/// launch instead of hanging it.
void poll(OpBuilder &b, Location loc, Value address, Value value,
          StringRef scope, bool atLeast) {
  // One try: load the counter (operand `a`) into v, p = still waiting for
  // the value (operand `v`).
  auto attempt = [&](StringRef a, StringRef v) {
    std::string load =
        "ld.acquire." + scope.str() + ".global.b32 v, [" + a.str() + "];\n";
    return load +
           (atLeast ? "sub.s32 d, v, " + v.str() + ";\nsetp.lt.s32 p, d, 0;\n"
                    : "setp.ne.b32 p, v, " + v.str() + ";\n");
  };
  std::string regs = "{\n.reg .pred p;\n.reg .b32 v;\n.reg .s32 d;\n";
  int64_t limitMs = waitLimitMs(b);
  if (limitMs <= 0) {
    inlinePtx(b, loc, {address, value},
              regs + "TK_SIGNAL:\n" + attempt("$0", "$1") +
                  "@p bra TK_SIGNAL;\n}",
              "l,r");
    return;
  }
  inlinePtx(b, loc, {address, value},
            regs +
                timedWaitPtx(b, loc, attempt("$0", "$1"), "@!p", "$1", "$0",
                             /*address64=*/true, "counter") +
                "}",
            "l,r");
}

/// NVIDIA: after a counter's acquire. What follows may be TMA (the async
/// proxy) reading or adding to data that other blocks, devices or copy
/// engines wrote before the count (all_gather_gemm's loads of the shards
/// the peers pushed, gemm_reduce_scatter's reduce stores into the owners'
/// zeroed output): the proxy fence orders it after the acquire, and the
/// block barrier after the poll carries that to the thread that issues
/// it.
void acquireForAsyncProxy(OpBuilder &b, Location loc) {
  inlinePtx(b, loc, {}, "fence.proxy.async.global;", "");
}

struct SignalAddLowering : OpConversionPattern<SignalAddOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SignalAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (op.getCounters().getType().getDevices() > 0 || op.getAfterAsyncStores())
      publishAsyncStores(rewriter, loc);
    blockBarrier(rewriter, loc, op);
    onFirstThread(rewriter, loc, op, [&](OpBuilder &b) {
      Value counters =
          viewCopy(b, loc, op, adaptor.getCounters(), adaptor.getDevice());
      Value address = counterAddress(b, loc, counters, adaptor.getIndex());
      if (targetsAMD(b)) {
        LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add, address,
                                  adaptor.getValue(),
                                  LLVM::AtomicOrdering::release, "agent");
        return;
      }
      releaseAdd(b, loc, address, adaptor.getValue(),
                 scopeOf(op.getCounters().getType()));
    });
    rewriter.eraseOp(op);
    return success();
  }
};

struct SignalWaitLowering : OpConversionPattern<SignalWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SignalWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    onFirstThread(rewriter, loc, op, [&](OpBuilder &b) {
      Value counters =
          viewCopy(b, loc, op, adaptor.getCounters(), adaptor.getDevice());
      Value address = counterAddress(b, loc, counters, adaptor.getIndex());
      if (!targetsAMD(b)) {
        poll(b, loc, address, adaptor.getValue(),
             scopeOf(op.getCounters().getType()), op.getAtLeast());
        acquireForAsyncProxy(b, loc);
        return;
      }
      auto poll = scf::WhileOp::create(b, loc, TypeRange{}, ValueRange{});
      b.createBlock(&poll.getBefore());
      Value seen = LLVM::LoadOp::create(
          b, loc, b.getI32Type(), address, /*alignment=*/4,
          /*isVolatile=*/false, /*isNonTemporal=*/false,
          /*isInvariant=*/false, /*isInvariantGroup=*/false,
          LLVM::AtomicOrdering::acquire, "agent");
      Value waiting;
      if (op.getAtLeast()) {
        Value ahead = arith::SubIOp::create(b, loc, seen, adaptor.getValue());
        Value zero = constI32(b, loc, 0);
        waiting = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                        ahead, zero);
      } else {
        waiting = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, seen,
                                        adaptor.getValue());
      }
      scf::ConditionOp::create(b, loc, waiting, ValueRange{});
      b.createBlock(&poll.getAfter());
      scf::YieldOp::create(b, loc);
    });
    blockBarrier(rewriter, loc, op);
    rewriter.eraseOp(op);
    return success();
  }
};
/// One block barrier and one wait for the block's stores, then the first
/// thread adds 1 to every device's copy (system-scope release) and polls
/// the own copy (system-scope acquire) until it reaches `expected`.
struct DeviceBarrierLowering : OpConversionPattern<DeviceBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DeviceBarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    publishAsyncStores(rewriter, loc);
    blockBarrier(rewriter, loc, op);
    onFirstThread(rewriter, loc, op, [&](OpBuilder &b) {
      Value devices = deviceCount(b, loc, op);
      Value zero = constIndex(b, loc, 0);
      Value step = constIndex(b, loc, 1);
      auto each = scf::ForOp::create(b, loc, zero, devices, step);
      {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPoint(each.getBody()->getTerminator());
        Value copy =
            viewCopy(b, loc, op, adaptor.getCounters(), each.getInductionVar());
        Value address = counterAddress(b, loc, copy, adaptor.getIndex());
        releaseAdd(b, loc, address, constI32(b, loc, 1), "sys");
      }
      Value own =
          counterAddress(b, loc, adaptor.getCounters(), adaptor.getIndex());
      poll(b, loc, own, adaptor.getExpected(), "sys", /*atLeast=*/true);
      acquireForAsyncProxy(b, loc);
    });
    blockBarrier(rewriter, loc, op);
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void tk::lower::populateSignalPatterns(TypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<SignalAddLowering, SignalWaitLowering, DeviceBarrierLowering>(
      converter, patterns.getContext());
}
