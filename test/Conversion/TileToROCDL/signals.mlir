// RUN: tk-opt %s -split-input-file -convert-tile-to-rocdl | FileCheck %s

// Counters on AMD: workgroup barriers around the first thread's
// agent-scope acquire poll and release add.
// CHECK-LABEL: llvm.func @signals
// CHECK-SAME: (%[[F:.*]]: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64, %[[V:.*]]: i32)
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %c0{{.*}} : index
// CHECK: scf.if %[[FIRST]] {
// CHECK: %[[P:.*]] = llvm.getelementptr %[[F]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
// CHECK: scf.while
// CHECK: %[[SEEN:.*]] = llvm.load %[[P]] atomic syncscope("agent") acquire
// CHECK: %[[NE:.*]] = arith.cmpi ne, %[[SEEN]], %[[V]] : i32
// CHECK: scf.condition(%[[NE]])
// CHECK: rocdl.barrier
// CHECK-NEXT: rocdl.barrier
// CHECK: scf.if
// CHECK: llvm.atomicrmw add %{{.*}}, %[[V]] syncscope("agent") release
module attributes {tile.target = "gfx942"} {
  tile.kernel @signals(%F: !tile.gl<?xi32>, %i: index, %v: i32) launch(warpgroups = 1) {
    tile.signal_wait %F[%i], %v : !tile.gl<?xi32>
    tile.signal_add %F[%i], %v : !tile.gl<?xi32>
  }
}

// -----

// after_async_stores on AMD: every store is an ordinary one, so the add is
// the same release (no async-store wait).
// CHECK-LABEL: llvm.func @signal_after_async_stores
// CHECK-NOT: cp.async
// CHECK: rocdl.barrier
// CHECK: llvm.atomicrmw add %{{.*}} syncscope("agent") release
module attributes {tile.target = "gfx942"} {
  tile.kernel @signal_after_async_stores(%F: !tile.gl<?xi32>, %i: index, %v: i32) launch(warpgroups = 1) {
    tile.signal_add %F[%i], %v after_async_stores : !tile.gl<?xi32>
  }
}

// -----

// tile.block_id is the workgroup's index in the grid: block 0 alone adds.
// CHECK-LABEL: llvm.func @once_per_launch
// CHECK: %[[B:.*]] = rocdl.workgroup.id.x : i32
// CHECK: %[[I:.*]] = arith.index_castui %[[B]] : i32 to index
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[I]], %{{.*}} : index
// CHECK: scf.if %[[FIRST]] {
// CHECK: llvm.atomicrmw add
module attributes {tile.target = "gfx942"} {
  tile.kernel @once_per_launch(%F: !tile.gl<?xi32>, %v: i32) launch(warpgroups = 1) {
    %c0 = arith.constant 0 : index
    %block = tile.block_id
    %first = arith.cmpi eq, %block, %c0 : index
    scf.if %first {
      tile.signal_add %F[%c0], %v : !tile.gl<?xi32>
    }
  }
}
