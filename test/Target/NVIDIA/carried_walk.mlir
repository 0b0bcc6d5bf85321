// The GPU check program for a warp-specialized tile loop that carries
// values: the producer (40 registers) and the consumers (232) each run a
// tile loop; the consumers publish the carried previous tile in the loop and
// the last one after it (after_async_stores), each a device-scope release
// add by one thread once the block's TMA stores are written (wait_group 0,
// not .read) and fenced to the generic proxy; after the loop the consumers
// first wait the same way for their stores, then read their rows of the
// last tile back (16-byte loads) and store them.
// RUN: rm -rf %t && tk-opt %tk_src_root/python/gpu_checks/carried_walk.mlir -tile-to-nvidia="out=%t cubin=false" -o /dev/null
// RUN: FileCheck %s < %t/carried_walk.ptx
// CHECK-LABEL: .entry carried_walk(
// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK-DAG: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK: cp.async.bulk.wait_group 0;
// CHECK: fence.proxy.async.global;
// CHECK: red.release.gpu.global.add.s32
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK: cp.async.bulk.wait_group 0;
// CHECK: fence.proxy.async.global;
// CHECK: ld.global.v4.b32
// CHECK: st.global.v4.b32
// CHECK: red.release.gpu.global.add.s32
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
