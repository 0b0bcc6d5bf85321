//===- Signal.cpp - Counters in global memory between blocks -------------===//
//
// tile.signal_add / tile.signal_wait for both targets: a barrier over the
// threads running the block's work, and one of them touching the counter
// with device-scope release (add) or acquire (poll); on a multi-device view
// (NVIDIA) at system scope, in the copy of the device the op names.
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

struct SignalAddLowering : OpConversionPattern<SignalAddOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SignalAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    bool system = op.getCounters().getType().getDevices() > 0;
    if (system) {
      // The block's TMA stores (issued by one thread per warpgroup) must be
      // written, not only have read shared memory, before the release
      // publishes them; the proxy fence orders them (async proxy) before
      // the generic-proxy release.
      emitOncePerWarpgroup(rewriter, loc, [&](OpBuilder &b) {
        NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0, UnitAttr{});
        inlinePtx(b, loc, {}, "fence.proxy.async.global;", "");
      });
    }
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
      // Release is cumulative: it covers the writes the other threads made
      // before the barrier.
      inlinePtx(b, loc, {address, adaptor.getValue()},
                "red.release." + scopeOf(op.getCounters().getType()).str() +
                    ".global.add.s32 [$0], $1;",
                "l,r");
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
        // at_least: wait while (seen - value) < 0 as a signed difference.
        std::string test = op.getAtLeast()
                               ? "sub.s32 d, v, $1;\nsetp.lt.s32 p, d, 0;\n"
                               : "setp.ne.b32 p, v, $1;\n";
        inlinePtx(b, loc, {address, adaptor.getValue()},
                  "{\n.reg .pred p;\n.reg .b32 v;\n.reg .s32 d;\n"
                  "TK_SIGNAL:\nld.acquire." +
                      scopeOf(op.getCounters().getType()).str() +
                      ".global.b32 v, [$0];\n" + test + "@p bra TK_SIGNAL;\n}",
                  "l,r");
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
} // namespace

void tk::lower::populateSignalPatterns(TypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<SignalAddLowering, SignalWaitLowering>(converter,
                                                      patterns.getContext());
}
