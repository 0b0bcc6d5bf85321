// RUN: tk-opt %s -split-input-file -allow-unregistered-dialect -convert-tile-to-nvvm | FileCheck %s

// A module without kernels is left alone: no gpu.module, no ABI.
// CHECK-LABEL: module {
// CHECK-NEXT: "test.not_a_kernel"() : () -> ()
// CHECK-NEXT: }
module {
  "test.not_a_kernel"() : () -> ()
}

// -----

// The ABI: a view becomes a global pointer and an i64 per dimension, scalars
// follow in order (i1 as i32, index as i64), TMA descriptors come last as
// 128-byte grid constants. Shared buffers sit at fixed offsets of one
// dynamic buffer aligned to 1024 bytes; semaphores become mbarriers.
// CHECK-LABEL: module attributes {gpu.container_module, tile.abi = {sems = {
// CHECK: gpu.module @tk_kernels
// CHECK: llvm.mlir.global external @__tk_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.func @sems(%[[A:.*]]: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64, %[[FLAG:.*]]: i32, %[[N:.*]]: i64, %[[MAP:.*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// CHECK-SAME: nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>, nvvm.minctasm = 1 : i32
// CHECK: arith.trunci %[[FLAG]] : i32 to i1
// CHECK: arith.index_cast %[[N]] : i64 to index
// CHECK: %[[SMEM:.*]] = llvm.mlir.addressof @__tk_smem : !llvm.ptr<3>
// CHECK: arith.constant 16384 : i64
// CHECK: nvvm.mbarrier.init %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
// CHECK: nvvm.fence.mbarrier.init
// CHECK: nvvm.barrier0
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAP]], %{{.*}}, box[%{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK: llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i32
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{{.*}}mbarrier.try_wait.parity.shared::cta.b64 p, [$0], $1;{{.*}}@!p bra TK_WAIT;{{.*}}", "r,r"
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3> -> i64
tile.kernel @sems(%A: !tile.gl<?x?xbf16>, %flag: i1, %n: index) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<128x64xbf16, #tile.swizzle<128>>
  %s = tile.alloc : !tile.sem
  tile.sem_init %s, 1 : !tile.sem
  tile.fence sem_init
  tile.barrier block
  %c0 = arith.constant 0 : index
  %p = arith.constant 0 : i32
  tile.sem_expect %s, %a : !tile.st<128x64xbf16, #tile.swizzle<128>>
  tile.load_async %A[%c0, %n] -> %a, %s : !tile.gl<?x?xbf16>, !tile.st<128x64xbf16, #tile.swizzle<128>>
  tile.sem_wait %s, %p
  tile.sem_arrive %s
}

// -----

// Roles: a branch on the warpgroup index, each with its register budget;
// warpgroup ids are relative to the role and taken from lane 0 (shfl.sync
// idx), so ptxas knows them warp-uniform. A grouped persistent walk (GEMM)
// is left a loop strided by the grid, its iteration (linear - block) / grid,
// and no magic-number divisors.
// CHECK-LABEL: llvm.func @roles
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: scf.if
// CHECK: nvvm.setmaxregister decrease 40
// The producer role only walks tiles: its first warp runs it.
// CHECK: %[[PTID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[PIDX:.*]] = arith.index_castui %[[PTID]]
// CHECK: %[[PLANE:.*]] = arith.remui %[[PIDX]], %c128
// CHECK: %[[FIRST:.*]] = arith.cmpi ult, %[[PLANE]], %c32
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK: %[[BID:.*]] = nvvm.read.ptx.sreg.ctaid.x
// CHECK: %[[B:.*]] = arith.index_castui %[[BID]] : i32 to index
// CHECK: %[[GRID:.*]] = nvvm.read.ptx.sreg.nctaid.x
// CHECK: %[[G:.*]] = arith.index_castui %[[GRID]] : i32 to index
// CHECK-NOT: llvm.intr.ctlz
// CHECK: scf.for %[[L:.*]] = %[[B]] to %{{.*}} step %[[G]]
// CHECK: %[[OFF:.*]] = arith.subi %[[L]], %[[B]] : index
// CHECK: arith.divui %[[OFF]], %[[G]] : index
// CHECK: } else {
// CHECK: nvvm.setmaxregister increase 232
// CHECK: %[[LANE0:.*]] = nvvm.shfl.sync idx %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : i32 -> i32
// CHECK: %[[WG:.*]] = arith.index_castui %[[LANE0]] : i32 to index
// CHECK: arith.subi %[[WG]], %c1
tile.kernel @roles(%n: index) launch(warpgroups = 3, grid = persistent) {
  tile.warp_specialize producer(warpgroups = 1, registers = 40) {
    tile.foreach_tile (%i, %j) in (%n, %n) group 4 iteration(%t) {
    }
  } consumer(warpgroups = 2, registers = 232) {
    %wg = tile.warpgroup_id
    "test.use"(%wg) : (index) -> ()
  }
}

// -----

// A counter wait in the producer role needs one warp only: the role still
// runs on its first warp, whose first thread polls and whose 32 threads
// meet on the role's named barrier (14); the consumers' barrier (15)
// counts their 256 threads.
// CHECK-LABEL: llvm.func @producer_waits
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: %[[PLANE:.*]] = arith.remui %{{.*}}, %c128
// CHECK: %[[FIRST:.*]] = arith.cmpi ult, %[[PLANE]], %c32
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK: ld.acquire.gpu.global.b32
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "fence.proxy.async.global;", ""
// CHECK: %[[P:.*]] = arith.constant 32 : i32
// CHECK-NEXT: nvvm.barrier id = %c14_i32 number_of_threads = %[[P]]
// CHECK: } else {
// CHECK: nvvm.setmaxregister increase 232
// CHECK: ld.acquire.gpu.global.b32
// CHECK: %[[C:.*]] = arith.constant 256 : i32
// CHECK-NEXT: nvvm.barrier id = %c15_i32 number_of_threads = %[[C]]
tile.kernel @producer_waits(%F: !tile.gl<?xi32>, %n: index, %v: i32) launch(warpgroups = 3, grid = persistent) {
  tile.warp_specialize producer(warpgroups = 1, registers = 40) {
    tile.foreach_tile (%i) in (%n) {
      tile.signal_wait %F[%i], %v at_least : !tile.gl<?xi32>
    }
  } consumer(warpgroups = 2, registers = 232) {
    tile.foreach_tile (%i) in (%n) {
      tile.signal_wait %F[%i], %v at_least : !tile.gl<?xi32>
    }
  }
}

// -----

// Grid-level roles: blocks below 4 run the communicate region with their
// index and the count; the others walk the tiles as blocks 0.. of a grid
// 4 smaller. The manifest tells the launcher to start the 4 first.
// CHECK: communication_blocks = 4 : i64
// CHECK-LABEL: llvm.func @block_roles
// CHECK: %[[BID:.*]] = nvvm.read.ptx.sreg.ctaid.x
// CHECK: %[[B:.*]] = arith.index_castui %[[BID]] : i32 to index
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[COMM:.*]] = arith.cmpi ult, %[[B]], %[[C4]] : index
// CHECK: scf.if %[[COMM]] {
// CHECK-NEXT: "test.use"(%[[B]], %[[C4]]) : (index, index) -> ()
// CHECK-NEXT: } else {
// CHECK: %[[TB:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK: nvvm.read.ptx.sreg.nctaid.x
// CHECK: %[[TG:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[STRIDE:.*]] = arith.muli %[[I]], %[[TG]] : index
// CHECK: %[[T:.*]] = arith.addi %[[TB]], %[[STRIDE]] : index
// CHECK: "test.use"(%[[T]])
tile.kernel @block_roles(%n: index) launch(warpgroups = 1, grid = persistent) {
  tile.block_roles communicate(blocks = 4) (%b, %nb) {
    "test.use"(%b, %nb) : (index, index) -> ()
  } compute {
    tile.foreach_tile (%i) in (%n) {
      "test.use"(%i) : (index) -> ()
    }
  }
}

// -----

// Under grid-level roles a buffer only the communicate region uses and one
// only the compute region uses share their shared memory (at 9216, after
// the semaphore at 0 and the buffer both use at 1024): 9216 + 32768 bytes,
// plus the 1024 the base is aligned with.
// CHECK: role_buffers = {abi
// CHECK-SAME: shared_memory_bytes = 43008
// CHECK-LABEL: llvm.func @role_buffers
// CHECK: arith.constant 0 : i64
// CHECK: arith.constant 9216 : i64
// CHECK: arith.constant 9216 : i64
// CHECK: arith.constant 1024 : i64
tile.kernel @role_buffers(%A: !tile.gl<?x?xbf16>, %n: index) launch(warpgroups = 1, grid = persistent) {
  %s = tile.alloc : !tile.sem<1>
  %comm = tile.alloc : !tile.st<128x64xbf16, #tile.swizzle<128>>
  %compute = tile.alloc : !tile.st<64x256xbf16, #tile.swizzle<128>>
  %both = tile.alloc : !tile.st<64x64xbf16, #tile.swizzle<128>>
  tile.sem_init %s, 1 : !tile.sem<1>
  %c0 = arith.constant 0 : index
  tile.block_roles communicate(blocks = 1) (%b, %nb) {
    tile.store_async %comm -> %A[%b, %c0] : !tile.st<128x64xbf16, #tile.swizzle<128>>, !tile.gl<?x?xbf16>
    tile.store_async %both -> %A[%b, %c0] : !tile.st<64x64xbf16, #tile.swizzle<128>>, !tile.gl<?x?xbf16>
  } compute {
    tile.foreach_tile (%i) in (%n) {
      tile.store_async %compute -> %A[%i, %c0] : !tile.st<64x256xbf16, #tile.swizzle<128>>, !tile.gl<?x?xbf16>
      tile.store_async %both -> %A[%i, %c0] : !tile.st<64x64xbf16, #tile.swizzle<128>>, !tile.gl<?x?xbf16>
    }
  }
}

// -----

// tile.prefix_sum: the persistent tile loop carries the running sum (0 at
// the block's first tile, plus the tile's value at the end of each).
// CHECK-LABEL: llvm.func @running_sum
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[SUM:.*]] = %[[C0]]) -> (index)
// CHECK: "test.use"(%[[SUM]])
// CHECK: %[[NEXT:.*]] = arith.addi %[[SUM]], %{{.*}} : index
// CHECK: scf.yield %[[NEXT]] : index
tile.kernel @running_sum(%n: index) launch(warpgroups = 1, grid = persistent) {
  tile.foreach_tile (%i) in (%n) {
    %trips = arith.addi %i, %n : index
    %s = tile.prefix_sum %trips
    "test.use"(%s) : (index) -> ()
  }
}

// -----

// snake: in odd rounds (iteration & 1) the block takes the mirrored tile of
// its round, start + min(grid, total - start) - 1 - block, where start =
// iteration * grid; the coordinates come from the chosen index. The loop
// counts the block's tiles, ceil((total - block) / grid), so the iteration
// is its induction variable. The coordinates divide by the first bound as a
// multiply and a shift (magic number and shift prepared before the loop)
// when the tile space is below 2^31 tiles, by plain divisions otherwise.
// CHECK-LABEL: llvm.func @snake
// CHECK: %[[B:.*]] = arith.index_castui %{{.*}} : i32 to index
// CHECK: %[[G:.*]] = arith.index_castui %{{.*}} : i32 to index
// CHECK: %[[MORE:.*]] = arith.cmpi ugt, %[[TOTAL:.*]], %[[B]] : index
// CHECK: %[[LEFT0:.*]] = arith.subi %[[TOTAL]], %[[B]] : index
// CHECK: %[[CEIL:.*]] = arith.ceildivui %[[LEFT0]], %[[G]] : index
// CHECK: %[[STEPS:.*]] = arith.select %[[MORE]], %[[CEIL]], %{{.*}} : index
// CHECK: %[[FITS:.*]] = arith.cmpi ult, %[[TOTAL]], %c2147483648 : index
// CHECK: %[[D:.*]] = arith.maxui %{{.*}}, %c1_i64 : i64
// CHECK: %[[CLZ:.*]] = "llvm.intr.ctlz"(%{{.*}}) <{is_zero_poison = false}> : (i64) -> i64
// CHECK: %[[L:.*]] = arith.subi %c64_i64, %[[CLZ]] : i64
// CHECK: %[[SHIFT:.*]] = arith.addi %[[L]], %c31_i64 : i64
// CHECK: %[[POW:.*]] = arith.shli %{{.*}}, %[[SHIFT]] : i64
// CHECK: %[[NUM:.*]] = arith.addi %[[POW]], %{{.*}} : i64
// CHECK: %[[MAGIC:.*]] = arith.divui %[[NUM]], %[[D]] : i64
// CHECK: %[[MAGIC32:.*]] = arith.trunci %[[MAGIC]] : i64 to i32
// CHECK: %[[SHIFT32:.*]] = arith.trunci %[[SHIFT]] : i64 to i32
// CHECK: scf.for %[[IT:.*]] = %{{.*}} to %[[STEPS]] step %{{.*}} {
// CHECK:   %[[START0:.*]] = arith.muli %[[IT]], %[[G]] : index
// CHECK:   %[[PLAIN:.*]] = arith.addi %[[B]], %[[START0]] : index
// CHECK:   %[[START:.*]] = arith.muli %[[IT]], %[[G]] : index
// CHECK:   %[[LEFT:.*]] = arith.subi %[[TOTAL]], %[[START]] : index
// CHECK:   %[[W:.*]] = arith.minui %[[G]], %[[LEFT]] : index
// CHECK:   %[[END:.*]] = arith.addi %[[START]], %[[W]] : index
// CHECK:   %[[B1:.*]] = arith.addi %[[B]], %{{.*}} : index
// CHECK:   %[[MIRROR:.*]] = arith.subi %[[END]], %[[B1]] : index
// CHECK:   %[[PAR:.*]] = arith.andi %[[IT]], %{{.*}} : index
// CHECK:   %[[ODD:.*]] = arith.cmpi ne, %[[PAR]], %{{.*}} : index
// CHECK:   %[[LIN:.*]] = arith.select %[[ODD]], %[[MIRROR]], %[[PLAIN]] : index
// CHECK:   %[[IJ:.*]]:2 = scf.if %[[FITS]] -> (index, index) {
// CHECK:     %[[N32:.*]] = arith.index_castui %[[LIN]] : index to i32
// CHECK:     %[[N64:.*]] = arith.extui %[[N32]] : i32 to i64
// CHECK:     %[[M64:.*]] = arith.extui %[[MAGIC32]] : i32 to i64
// CHECK:     %[[PROD:.*]] = arith.muli %[[N64]], %[[M64]] : i64
// CHECK:     %[[S64:.*]] = arith.extui %[[SHIFT32]] : i32 to i64
// CHECK:     %[[Q64:.*]] = arith.shrui %[[PROD]], %[[S64]] : i64
// CHECK:     %[[Q:.*]] = arith.index_castui %[[Q64]] : i64 to index
// CHECK:     %[[QD:.*]] = arith.muli %[[Q]], %{{.*}} : index
// CHECK:     %[[R:.*]] = arith.subi %[[LIN]], %[[QD]] : index
// CHECK:     scf.yield %[[R]], %[[Q]] : index, index
// CHECK:   } else {
// CHECK:     %[[SR:.*]] = arith.remui %[[LIN]], %{{.*}} : index
// CHECK:     %[[SQ:.*]] = arith.divui %[[LIN]], %{{.*}} : index
// CHECK:     scf.yield %[[SR]], %[[SQ]] : index, index
// CHECK:   }
// CHECK:   "test.use"(%[[IJ]]#0, %[[IJ]]#1, %[[IT]])
tile.kernel @snake(%n: index) launch(warpgroups = 1, grid = persistent) {
  tile.foreach_tile (%i, %j) in (%n, %n) snake iteration(%t) {
    "test.use"(%i, %j, %t) : (index, index, index) -> ()
  }
}

// -----

// Under grid = tiles (one tile per block) snake changes nothing: the tile is
// the block index.
// CHECK-LABEL: llvm.func @snake_one_tile
// CHECK: %[[B:.*]] = arith.index_castui %{{.*}} : i32 to index
// CHECK-NOT: arith.select
// CHECK: "test.use"(%[[B]])
tile.kernel @snake_one_tile(%n: index) launch(warpgroups = 1) {
  tile.foreach_tile (%i) in (%n) snake {
    "test.use"(%i) : (index) -> ()
  }
}

// -----

// With one tile per block, every block's running sum is 0.
// CHECK-LABEL: llvm.func @running_sum_one_tile
// CHECK: scf.if
// CHECK: "test.use"(%c0{{(_[0-9]+)?}})
tile.kernel @running_sum_one_tile(%n: index) launch(warpgroups = 1) {
  tile.foreach_tile (%i) in (%n) {
    %s = tile.prefix_sum %i
    "test.use"(%s) : (index) -> ()
  }
}

// -----

// One tile per block: the block index picks the tile, guarded by the count.
// CHECK-LABEL: llvm.func @one_tile_per_block
// CHECK: %[[BID:.*]] = nvvm.read.ptx.sreg.ctaid.x
// CHECK: arith.cmpi ult
// CHECK: scf.if
// CHECK: arith.remui
// CHECK: arith.divui
tile.kernel @one_tile_per_block(%n: index) launch(warpgroups = 1) {
  tile.foreach_tile (%i, %j) in (%n, %n) {
    "test.use"(%i, %j) : (index, index) -> ()
  }
}

// -----

// wgmma: A K-major ("row"), B N-major ("row") for AB; B K-major ("col") for
// ABt. One instruction per 16 of K, between a fence and a commit + wait.
// CHECK-LABEL: llvm.func @mma
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <{{one|zero}}>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
tile.kernel @mma() launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xbf16, #tile.swizzle<128>>
  %b = tile.alloc : !tile.st<64x128xbf16, #tile.swizzle<128>>
  %bt = tile.alloc : !tile.st<128x64xbf16, #tile.swizzle<128>>
  %d = tile.mma AB %a, %b : !tile.st<64x64xbf16, #tile.swizzle<128>>, !tile.st<64x128xbf16, #tile.swizzle<128>> -> !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
  %e = tile.mma ABt %a, %bt, %d : !tile.st<64x64xbf16, #tile.swizzle<128>>, !tile.st<128x64xbf16, #tile.swizzle<128>> -> !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
  "test.use"(%e) : (!tile.rt<64x128xf32, warpgroup, #tile.mma_acc>) -> ()
}

// -----

// Elementwise ops act field by field on the thread's struct of elements.
// CHECK-LABEL: llvm.func @elementwise
// CHECK: llvm.mlir.constant(2.000000e+00 : f32) : f32
// CHECK: llvm.fmul
// CHECK: llvm.fptrunc %{{.*}} : f32 to bf16
tile.kernel @elementwise(%s: f32) launch(warpgroups = 1) {
  %x = tile.fill 2.0 : !tile.rt<64x16xf32, warpgroup, #tile.mma_acc>
  %y = tile.mul %x, %s : !tile.rt<64x16xf32, warpgroup, #tile.mma_acc>, f32
  %z = tile.cast %y : !tile.rt<64x16xf32, warpgroup, #tile.mma_acc> to !tile.rt<64x16xbf16, warpgroup, #tile.mma_acc>
  "test.use"(%z) : (!tile.rt<64x16xbf16, warpgroup, #tile.mma_acc>) -> ()
}

// -----

// On 16-bit floats they go two fields at a time, as 2-element vectors (one
// mul.bf16x2 / add.bf16x2 per pair); a scalar operand is repeated in
// both lanes.
// CHECK-LABEL: llvm.func @elementwise_bf16
// CHECK-NOT: llvm.fmul {{.*}} : bf16
// CHECK: llvm.fmul {{.*}} : vector<2xbf16>
// CHECK-NOT: llvm.fadd {{.*}} : bf16
// CHECK: llvm.fadd {{.*}} : vector<2xbf16>
// CHECK-NOT: {{llvm.fmul|llvm.fadd}} {{.*}} : bf16
// CHECK: llvm.return
tile.kernel @elementwise_bf16(%s: f32) launch(warpgroups = 1) {
  %x = tile.fill 2.0 : !tile.rt<64x16xbf16, warpgroup, #tile.mma_acc>
  %y = tile.mul %x, %s : !tile.rt<64x16xbf16, warpgroup, #tile.mma_acc>, f32
  %z = tile.add %y, %x : !tile.rt<64x16xbf16, warpgroup, #tile.mma_acc>
  "test.use"(%z) : (!tile.rt<64x16xbf16, warpgroup, #tile.mma_acc>) -> ()
}

// -----

// Row reductions on the accumulator: a thread folds its registers of each
// row, then two butterfly shuffles (xor 1, 2) over the quad that shares the
// row. A broadcast back reads the vector register of each element's row.
// CHECK-LABEL: llvm.func @reductions
// CHECK: llvm.intr.maxnum
// CHECK: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %c1_i32
// CHECK: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %c2_i32
// CHECK: llvm.fadd
// CHECK: nvvm.shfl.sync bfly
tile.kernel @reductions() launch(warpgroups = 1) {
  %x = tile.fill 1.0 : !tile.rt<64x16xf32, warpgroup, #tile.mma_acc>
  %m = tile.row_max %x : !tile.rt<64x16xf32, warpgroup, #tile.mma_acc> -> !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>
  %s = tile.row_sum %x, %m : !tile.rt<64x16xf32, warpgroup, #tile.mma_acc> -> !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>
  %b = tile.broadcast row %s : !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>> to !tile.rt<64x16xf32, warpgroup, #tile.mma_acc>
  "test.use"(%b) : (!tile.rt<64x16xf32, warpgroup, #tile.mma_acc>) -> ()
}

// -----

// A bf16 row reduction shuffles each 16-bit value in the low bits of a
// 32-bit lane (nvvm.shfl.sync moves i32 and f32 only).
// CHECK-LABEL: llvm.func @reductions_bf16
// CHECK: llvm.intr.maxnum({{.*}}) : (bf16, bf16) -> bf16
// CHECK: %[[BITS:.*]] = llvm.bitcast %{{.*}} : bf16 to i16
// CHECK: %[[WIDE:.*]] = llvm.zext %[[BITS]] : i16 to i32
// CHECK: %[[GOT:.*]] = nvvm.shfl.sync bfly %{{.*}}, %[[WIDE]], %c1_i32, %{{.*}} : i32 -> i32
// CHECK: %[[NARROW:.*]] = llvm.trunc %[[GOT]] : i32 to i16
// CHECK: llvm.bitcast %[[NARROW]] : i16 to bf16
tile.kernel @reductions_bf16() launch(warpgroups = 1) {
  %x = tile.fill 1.0 : !tile.rt<64x16xbf16, warpgroup, #tile.mma_acc>
  %m = tile.row_max %x : !tile.rt<64x16xbf16, warpgroup, #tile.mma_acc> -> !tile.rv<64xbf16, warpgroup, #tile.vec<row, #tile.mma_acc>>
  "test.use"(%m) : (!tile.rv<64xbf16, warpgroup, #tile.vec<row, #tile.mma_acc>>) -> ()
}

// -----

// A semaphore only tile.sem_arrive signals: each warp's first lane arrives,
// so the mbarrier expects 4 arrivals per declared one and no warpgroup
// barrier is needed. One that is also expected on keeps the barrier path.
// CHECK-LABEL: llvm.func @per_warp_arrivals
// CHECK: %[[EIGHT:.*]] = arith.constant 8 : i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %[[EIGHT]]
// CHECK: arith.constant 32 : index
// CHECK-NOT: nvvm.barrier id
// CHECK: nvvm.mbarrier.arrive
// CHECK: nvvm.barrier id
// CHECK: nvvm.mbarrier.arrive
tile.kernel @per_warp_arrivals() launch(warpgroups = 2) {
  %empty = tile.alloc : !tile.sem
  %mixed = tile.alloc : !tile.sem
  %a = tile.alloc : !tile.st<64x64xbf16, #tile.swizzle<128>>
  tile.sem_init %empty, 2 : !tile.sem
  tile.sem_init %mixed, 2 : !tile.sem
  tile.sem_arrive %empty
  tile.sem_expect %mixed, %a : !tile.st<64x64xbf16, #tile.swizzle<128>>
  tile.sem_arrive %mixed
}

// -----

// tile.mma_async leaves its wgmma group in flight; tile.mma_wait N waits
// until at most N remain.
// CHECK-LABEL: llvm.func @mma_in_flight
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
tile.kernel @mma_in_flight() launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xbf16, #tile.swizzle<128>>
  %b = tile.alloc : !tile.st<64x128xbf16, #tile.swizzle<128>>
  %d = tile.mma_async AB %a, %b : !tile.st<64x64xbf16, #tile.swizzle<128>>, !tile.st<64x128xbf16, #tile.swizzle<128>> -> !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
  %e = tile.mma_async AB %a, %b, %d : !tile.st<64x64xbf16, #tile.swizzle<128>>, !tile.st<64x128xbf16, #tile.swizzle<128>> -> !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
  tile.mma_wait 1
  tile.mma_wait 0
  "test.use"(%e) : (!tile.rt<64x128xf32, warpgroup, #tile.mma_acc>) -> ()
}

// -----

// Register → shared: bf16 accumulator fragments go out with stmatrix.x4
// (the m8n8 fragment four times); f32 ones element by element, two at a
// time, at their swizzled addresses.
// CHECK-LABEL: llvm.func @to_shared
// CHECK-COUNT-2: nvvm.stmatrix %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK-NOT: nvvm.stmatrix
// Fragments whose swizzle pattern repeats (8 rows apart, or a whole 128-byte
// block apart) share one computed offset plus a constant: 4 XORs for the 8
// pairs of a 64x32 f32 tile.
// CHECK-COUNT-4: arith.xori
// CHECK-NOT: arith.xori
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
tile.kernel @to_shared() launch(warpgroups = 1) {
  %s16 = tile.alloc : !tile.st<64x32xbf16, #tile.swizzle<64>>
  %s32 = tile.alloc : !tile.st<64x32xf32, #tile.swizzle<128>>
  %x = tile.fill 1.0 : !tile.rt<64x32xbf16, warpgroup, #tile.mma_acc>
  %y = tile.fill 1.0 : !tile.rt<64x32xf32, warpgroup, #tile.mma_acc>
  tile.store %x, %s16 : !tile.rt<64x32xbf16, warpgroup, #tile.mma_acc>, !tile.st<64x32xbf16, #tile.swizzle<64>>
  tile.store %y, %s32 : !tile.rt<64x32xf32, warpgroup, #tile.mma_acc>, !tile.st<64x32xf32, #tile.swizzle<128>>
}

// -----

// Shared → register: bf16 m8n8 fragments with ldmatrix.x4, others element
// by element at their swizzled addresses.
// CHECK-LABEL: llvm.func @from_shared
// CHECK-COUNT-2: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK-NOT: nvvm.ldmatrix
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
tile.kernel @from_shared() launch(warpgroups = 1) {
  %s16 = tile.alloc : !tile.st<64x32xbf16, #tile.swizzle<64>>
  %s32 = tile.alloc : !tile.st<64x32xf32, #tile.swizzle<128>>
  %x = tile.load %s16 : !tile.st<64x32xbf16, #tile.swizzle<64>> -> !tile.rt<64x32xbf16, warpgroup, #tile.mma_acc>
  %y = tile.load %s32 : !tile.st<64x32xf32, #tile.swizzle<128>> -> !tile.rt<64x32xf32, warpgroup, #tile.mma_acc>
  "test.use"(%x, %y) : (!tile.rt<64x32xbf16, warpgroup, #tile.mma_acc>, !tile.rt<64x32xf32, warpgroup, #tile.mma_acc>) -> ()
}

// -----

// Masks compare each element's (row, col), known from the fragment map, and
// select; exp and log go through ex2 and lg2; a conversion between layouts
// with the same fragment map (mma_acc and row at 64 rows) moves nothing.
// CHECK-LABEL: llvm.func @masks_and_math
// CHECK: llvm.mlir.constant(0xFF800000 : f32) : f32
// CHECK: arith.cmpi ule, %[[COL:.*]], %[[ROW:.*]] : index
// CHECK: llvm.select
// CHECK: arith.cmpi ule, %[[ROW2:.*]], %[[COL2:.*]] : index
// CHECK: llvm.select
// CHECK: arith.cmpi ult
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// CHECK: llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"
// CHECK-NOT: tile.convert_layout
// CHECK: "test.use"
tile.kernel @masks_and_math(%r: index, %c: index, %n: index) launch(warpgroups = 1) {
  %x = tile.fill 1.0 : !tile.rt<64x16xf32, warpgroup, #tile.mma_acc>
  %m0 = tile.causal_mask %x[%r, %c] fill neg_inf : !tile.rt<64x16xf32, warpgroup, #tile.mma_acc>
  %m = tile.causal_mask %m0[%r, %c] transposed fill neg_inf : !tile.rt<64x16xf32, warpgroup, #tile.mma_acc>
  %b = tile.bound_mask %m[%r, %c] within [%n, %n] fill zero : !tile.rt<64x16xf32, warpgroup, #tile.mma_acc>
  %e = tile.exp %b : !tile.rt<64x16xf32, warpgroup, #tile.mma_acc>
  %l = tile.log %e : !tile.rt<64x16xf32, warpgroup, #tile.mma_acc>
  %p = tile.cast %l : !tile.rt<64x16xf32, warpgroup, #tile.mma_acc> to !tile.rt<64x16xbf16, warpgroup, #tile.mma_acc>
  %a = tile.convert_layout %p : !tile.rt<64x16xbf16, warpgroup, #tile.mma_acc> to !tile.rt<64x16xbf16, warpgroup, #tile.row>
  "test.use"(%a) : (!tile.rt<64x16xbf16, warpgroup, #tile.row>) -> ()
}

// -----

// wgmma with A from registers is inline PTX: the accumulator tied in and
// out, A as four b32 of packed bf16 pairs per 16 of K, B by descriptor
// (imm-trans-b 1 for an N-major B).
// CHECK-LABEL: llvm.func @register_a
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 1;
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
tile.kernel @register_a() launch(warpgroups = 1) {
  %a = tile.fill 1.0 : !tile.rt<64x64xbf16, warpgroup, #tile.row>
  %b = tile.alloc : !tile.st<64x64xbf16, #tile.swizzle<128>>
  %d = tile.mma AB %a, %b : !tile.rt<64x64xbf16, warpgroup, #tile.row>, !tile.st<64x64xbf16, #tile.swizzle<128>> -> !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>
  "test.use"(%d) : (!tile.rt<64x64xf32, warpgroup, #tile.mma_acc>) -> ()
}

// -----

// A register vector goes to global memory once per element: only the
// thread whose replicated lane and warp digits are zero stores it.
// CHECK-LABEL: llvm.func @vector_store
// CHECK: arith.andi
// CHECK: scf.if
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<1>
tile.kernel @vector_store(%L: !tile.gl<?x?xf32>, %i: index) launch(warpgroups = 1) {
  %v = tile.fill 1.0 : !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>
  tile.store %v, %L[%i, %i] : !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>, !tile.gl<?x?xf32>
}

// -----

// A register vector comes from global memory element by element: each
// thread loads what its registers hold (16 of a 64-column vector). When its
// last element is inside the view, all 16 loads are straight-line; else
// each is guarded, zero past the view's end.
// CHECK-LABEL: llvm.func @vector_load
// CHECK: %[[LAST:.*]] = arith.addi %{{.*}}, %c57 : index
// CHECK: %[[ALL:.*]] = arith.cmpi ult, %[[LAST]], %{{.*}} : index
// CHECK: scf.if %[[ALL]] -> (!llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>) {
// CHECK-NOT: scf.if
// CHECK-COUNT-16: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK: } else {
// CHECK: arith.cmpi ult
// CHECK: scf.if %{{.*}} -> (f32)
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK: } else {
// CHECK: llvm.insertvalue
tile.kernel @vector_load(%L: !tile.gl<?x?xf32>, %i: index) launch(warpgroups = 1) {
  %v = tile.load %L[%i, %i] : !tile.gl<?x?xf32> -> !tile.rv<64xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>
  "test.use"(%v) : (!tile.rv<64xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>) -> ()
}

// -----

// A register vector comes from a shared vector (unswizzled, contiguous)
// element by element, unguarded: 16 loads of a 64-column vector per thread
// at the offsets its registers hold.
// CHECK-LABEL: llvm.func @shared_vector_load
// CHECK-NOT: scf.if
// CHECK-COUNT-16: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK-NOT: llvm.load
// CHECK: "test.use"
tile.kernel @shared_vector_load() launch(warpgroups = 1) {
  %s = tile.alloc : !tile.sv<64xf32>
  %v = tile.load %s : !tile.sv<64xf32> -> !tile.rv<64xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>
  "test.use"(%v) : (!tile.rv<64xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>) -> ()
}

// -----

// Register → global, 16 bytes at a time for bf16 m8n8 fragments: a 4x4
// word transpose inside each quad (shfl.sync idx), then one 16-byte store
// where the 8 elements are inside the view and aligned, else element stores.
// CHECK-LABEL: llvm.func @wide_store
// CHECK: nvvm.shfl.sync idx
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// CHECK: } else {
// CHECK: llvm.store %{{.*}}, %{{.*}} : bf16, !llvm.ptr<1>
tile.kernel @wide_store(%G: !tile.gl<?x?xbf16>, %i: index) launch(warpgroups = 1) {
  %x = tile.fill 1.0 : !tile.rt<64x32xbf16, warpgroup, #tile.mma_acc>
  tile.store %x, %G[%i, %i] : !tile.rt<64x32xbf16, warpgroup, #tile.mma_acc>, !tile.gl<?x?xbf16>
}

// -----

// A cluster shape along x becomes the kernel's required cluster size.
// CHECK-LABEL: llvm.func @clustered
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
tile.kernel @clustered() launch(warpgroups = 1, cluster = [2, 1, 1]) {
}

// -----

// Clusters: tile.cluster_sync is barrier.cluster arrive + wait; the rank is
// %cluster_ctarank; foreach_tile hands tiles to clusters (block and grid
// divided by the cluster size). A multicast load copies its block's 32 of
// the 64 rows (row coordinate + 32 rank, destination + 4096 rank bytes in
// each 128-byte column block) into both blocks (mask 0b11), and its TMA box
// is 32 rows. A cluster arrival maps the semaphore into each block of the
// cluster and arrives there. Left alone: a load without `multicast` copies
// the whole 64-row box into this block only, a plain arrival stays local.
// CHECK-LABEL: module attributes
// CHECK-SAME: box = array<i64: 32, 64>
// CHECK-SAME: box = array<i64: 64, 64>
// CHECK-SAME: cluster = array<i32: 2, 1, 1>
// CHECK: llvm.func @cluster
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK-NEXT: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK: %[[BID:.*]] = nvvm.read.ptx.sreg.ctaid.x
// CHECK: %[[BIDX:.*]] = arith.index_castui %[[BID]]
// CHECK: %[[WORKER:.*]] = arith.divui %[[BIDX]], %c2
// CHECK: %[[GRID:.*]] = nvvm.read.ptx.sreg.nctaid.x
// CHECK: %[[GRIDX:.*]] = arith.index_castui %[[GRID]]
// CHECK: %[[WORKERS:.*]] = arith.divui %[[GRIDX]], %c2
// CHECK: %[[WLEFT:.*]] = arith.subi %{{.*}}, %[[WORKER]]
// CHECK: arith.ceildivui %[[WLEFT]], %[[WORKERS]]
// CHECK: scf.for
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// CHECK: %[[R:.*]] = nvvm.read.ptx.sreg.cluster.ctarank
// CHECK: %[[ROWS:.*]] = arith.muli %[[R]], %c32_i32
// CHECK: %[[BYTES:.*]] = arith.muli %[[R]], %c4096_i32
// CHECK: %[[BYTES64:.*]] = arith.extui %[[BYTES]]
// CHECK: %[[MASK:.*]] = arith.constant 3 : i16
// CHECK: llvm.getelementptr %{{.*}}[%[[BYTES64]]]
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %[[ROWS]] : i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, box[%{{.*}}, %[[ROW]]] multicast_mask = %[[MASK]]
// CHECK: llvm.getelementptr %{{.*}}[%c8192_i64]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} multicast_mask = %[[MASK]]
// CHECK-NOT: multicast_mask
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg5, %{{.*}}, box[%{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.mbarrier.init %[[E:.*]], %c8_i32
// CHECK: %[[E0:.*]] = nvvm.mapa %[[E]], %c0_i32 : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: nvvm.mbarrier.arrive %[[E0]] : !llvm.ptr<7>
// CHECK: %[[E1:.*]] = nvvm.mapa %[[E]], %c1_i32 : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: nvvm.mbarrier.arrive %[[E1]] : !llvm.ptr<7>
// CHECK: nvvm.mbarrier.arrive %[[E]] : !llvm.ptr<3> -> i64
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK-NEXT: llvm.return
tile.kernel @cluster(%B: !tile.gl<?x?xbf16>, %n: index)
    launch(warpgroups = 1, grid = persistent, cluster = [2, 1, 1]) {
  %b = tile.alloc : !tile.st<64x128xbf16, #tile.swizzle<128>>
  %s = tile.alloc : !tile.sem
  tile.sem_init %s, 2 : !tile.sem
  tile.fence sem_init
  tile.cluster_sync
  %r = tile.cluster_rank
  tile.foreach_tile (%i) in (%n) iteration(%t) {
    tile.sem_expect %s, %b : !tile.st<64x128xbf16, #tile.swizzle<128>>
    tile.load_async %B[%r, %i] -> %b, %s multicast : !tile.gl<?x?xbf16>, !tile.st<64x128xbf16, #tile.swizzle<128>>
  }
  tile.load_async %B[%n, %n] -> %b, %s : !tile.gl<?x?xbf16>, !tile.st<64x128xbf16, #tile.swizzle<128>>
  %e = tile.alloc : !tile.sem
  tile.sem_init %e, 2 : !tile.sem
  tile.sem_arrive %e cluster
  tile.sem_arrive %e
  tile.cluster_sync
}

// -----

// Add-reducing stores. Through shared memory: the proxy fence, the
// warpgroup's barrier, then one reducing TMA store per 128-byte column block
// issued by one thread. Straight from registers: an atomic add per element,
// inside the view's bounds, never the 16-byte plain stores.
// CHECK-LABEL: llvm.func @reduce_add
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.barrier id
// CHECK: nvvm.cp.async.bulk.tensor.reduce %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] {redKind = #nvvm.tma_redux_kind<add>}
// CHECK: nvvm.cp.async.bulk.tensor.reduce %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] {redKind = #nvvm.tma_redux_kind<add>}
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK-NOT: llvm.store
// CHECK: scf.if
// CHECK: llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic : !llvm.ptr<1>, f32
// CHECK-NOT: llvm.store
tile.kernel @reduce_add(%G: !tile.gl<?x?xf32>, %i: index) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xf32, #tile.swizzle<128>>
  tile.store_async %a -> %G[%i, %i] reduce add : !tile.st<64x64xf32, #tile.swizzle<128>>, !tile.gl<?x?xf32>
  %x = tile.fill 1.0 : !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>
  tile.store %x, %G[%i, %i] reduce add : !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>, !tile.gl<?x?xf32>
}

// -----

// Fragment order. A warpgroup's accumulator into a shared vector: one
// computed offset, eight 16-byte stores (four consecutive registers each);
// the column layout's consecutive registers are 8 elements apart: 32 single
// stores. A shared vector to a view in fragment order: the proxy fence, the
// warpgroup's barrier, one bulk copy (reducing or plain) of the whole vector
// issued by one thread, no tensor map. Straight to the view: an atomic add
// per element.
// CHECK-LABEL: llvm.func @fragments
// CHECK-COUNT-8: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK-NOT: llvm.store %{{.*}} : vector<4xf32>
// CHECK-COUNT-32: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.barrier id
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [$0], [$1], 16384;", "l,r"
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "cp.async.bulk.global.shared::cta.bulk_group [$0], [$1], 8192;", "l,r"
// CHECK-COUNT-32: llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic : !llvm.ptr<1>, f32
// CHECK-NOT: nvvm.cp.async.bulk.tensor
tile.kernel @fragments(%G: !tile.gl<?x?x64xf32, fragments>, %i: index) launch(warpgroups = 1) {
  %v = tile.alloc : !tile.sv<4096xf32>
  %w = tile.alloc : !tile.sv<2048xf32>
  %x = tile.fill 1.0 : !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>
  %y = tile.fill 1.0 : !tile.rt<64x64xf32, warpgroup, #tile.col>
  tile.store %x, %v : !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>, !tile.sv<4096xf32>
  tile.store %y, %v : !tile.rt<64x64xf32, warpgroup, #tile.col>, !tile.sv<4096xf32>
  tile.store_async %v -> %G[%i, %i, %i] reduce add : !tile.sv<4096xf32>, !tile.gl<?x?x64xf32, fragments>
  tile.store_async %w -> %G[%i, %i, %i] : !tile.sv<2048xf32>, !tile.gl<?x?x64xf32, fragments>
  tile.store %x, %G[%i, %i, %i] reduce add : !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>, !tile.gl<?x?x64xf32, fragments>
}

// -----

// A view in fragment order read into registers: the accumulator layout's
// four elements of an 8-column group are adjacent, so eight 16-byte loads
// per 64x64 tile, each guarded by its elements' bounds (zeros outside); so
// for TK's row layout, whose 16x16 atoms hold the same four elements per
// thread; the column layout's registers are 8 elements apart: 32 single
// loads.
// CHECK-LABEL: llvm.func @fragments_load
// CHECK-COUNT-16: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT: llvm.load %{{.*}} -> vector<4xf32>
// CHECK-COUNT-32: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-NOT: llvm.load
tile.kernel @fragments_load(%G: !tile.gl<?x?x64xf32, fragments>, %i: index) launch(warpgroups = 1) {
  %x = tile.load %G[%i, %i, %i] : !tile.gl<?x?x64xf32, fragments> -> !tile.rt<64x64xf32, warpgroup, #tile.mma_acc>
  %y = tile.load %G[%i, %i, %i] : !tile.gl<?x?x64xf32, fragments> -> !tile.rt<64x64xf32, warpgroup, #tile.row>
  %z = tile.load %G[%i, %i, %i] : !tile.gl<?x?x64xf32, fragments> -> !tile.rt<64x64xf32, warpgroup, #tile.col>
  "test.use"(%x, %y, %z) : (!tile.rt<64x64xf32, warpgroup, #tile.mma_acc>, !tile.rt<64x64xf32, warpgroup, #tile.row>, !tile.rt<64x64xf32, warpgroup, #tile.col>) -> ()
}

// -----

// A view in fragment order with dynamic columns: the slab's offset scales by
// the launch's column count (the view's last dimension parameter), and the
// manifest asks for whole 80-column tiles.
// CHECK: tile.abi = {fragments_dynamic_cols = {
// CHECK-SAME: layout = "fragments", shape = array<i64: -1, 128, -1>, tile_cols = 80 : i64
// CHECK-LABEL: llvm.func @fragments_dynamic_cols
// CHECK-SAME: (%{{.*}}: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64, %[[COLS:[a-z0-9]+]]: i64, %{{.*}}: i64)
// CHECK: %[[C:.*]] = arith.index_castui %[[COLS]] : i64 to index
// CHECK: arith.muli %{{.*}}, %[[C]] : index
// CHECK: "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [$0], [$1], 20480;"
tile.kernel @fragments_dynamic_cols(%G: !tile.gl<?x128x?xf32, fragments>, %i: index) launch(warpgroups = 1) {
  %v = tile.alloc : !tile.sv<5120xf32>
  tile.store_async %v -> %G[%i, %i, %i] reduce add : !tile.sv<5120xf32>, !tile.gl<?x128x?xf32, fragments>
}

// -----

// Shared vectors start 128-byte aligned and a ring's slots are 128-byte
// multiples apart (TMA's destinations must be): 80 floats take 384 bytes.
// CHECK-LABEL: llvm.func @vector_ring_slots
// CHECK: arith.constant 128 : i64
// CHECK: %[[STRIDE:.*]] = arith.constant 384 : index
// CHECK: arith.muli %{{.*}}, %[[STRIDE]] : index
tile.kernel @vector_ring_slots(%i: index) launch(warpgroups = 1) {
  %a = tile.alloc : !tile.sv<4xf32>
  %r = tile.alloc : !tile.sv<2x80xf32>
  %s = tile.slot %r[%i] : !tile.sv<2x80xf32>
  %x = tile.load %s : !tile.sv<80xf32> -> !tile.rv<80xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>
  "test.use"(%x) : (!tile.rv<80xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>) -> ()
}

// -----

// A block barrier is bar.sync 0 for the whole block; inside a role it is a
// named barrier of the role's threads (15 for the consumers, 14 for the
// producers), so the other role is not waited for.
// The producer role synchronises its warps, so all of them run it.
// CHECK-LABEL: llvm.func @role_barriers
// CHECK: nvvm.barrier0
// CHECK: nvvm.setmaxregister decrease
// CHECK-NOT: scf.if
// CHECK: nvvm.barrier id = %c14_i32 number_of_threads = %c128_i32
// CHECK: nvvm.setmaxregister increase
// CHECK: nvvm.barrier id = %c15_i32 number_of_threads = %c256_i32
tile.kernel @role_barriers() launch(warpgroups = 3) {
  tile.barrier block
  tile.warp_specialize producer(warpgroups = 1, registers = 40) {
    tile.barrier block
  } consumer(warpgroups = 2, registers = 232) {
    tile.barrier block
  }
}

// -----

// tile.part_rows that tile-warp-specialize did not split (here: no roles at
// all) is the whole tile: [row, row + rows).
// CHECK-LABEL: llvm.func @part_rows_whole
// CHECK: %[[HI:.*]] = arith.addi %[[ROW:.*]], %c192 : index
// CHECK: "test.use"(%[[ROW]], %[[HI]])
tile.kernel @part_rows_whole(%row: index) launch(warpgroups = 3) {
  %lo, %hi = tile.part_rows %row of !tile.rt<192x128xf32, block>
  "test.use"(%lo, %hi) : (index, index) -> ()
}

// -----

// tile.uniform_warpgroup_id = false: each thread's own index, no shuffle.
// CHECK-LABEL: llvm.func @per_thread_warpgroup_id
// CHECK-NOT: nvvm.shfl.sync
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK-NOT: nvvm.shfl.sync
// CHECK: arith.divui %{{.*}}, %c128
// CHECK-NOT: nvvm.shfl.sync
// CHECK: "test.use"
tile.kernel @per_thread_warpgroup_id() launch(warpgroups = 2)
    attributes {tile.uniform_warpgroup_id = false} {
  %wg = tile.warpgroup_id
  "test.use"(%wg) : (index) -> ()
}

// -----

// iter_args: a persistent walk carries them in its loop (after any prefix
// sums), `grid = tiles` yields the body's values or the inits from its
// guard, the dynamic walk carries them through its condition.
// CHECK-LABEL: llvm.func @carried_persistent
// CHECK: %[[INIT:.*]] = arith.constant 7 : index
// CHECK: %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %[[INIT]]) -> (index) {
// CHECK: %[[S:.*]] = arith.addi %[[A]], %{{.*}} : index
// CHECK-NEXT: scf.yield %[[S]] : index
// CHECK: "test.use"(%[[R]])
tile.kernel @carried_persistent(%n: index) launch(warpgroups = 1, grid = persistent) {
  %c7 = arith.constant 7 : index
  %r = tile.foreach_tile (%i) in (%n) iter_args(%a = %c7) -> (index) {
    %s = arith.addi %a, %i : index
    tile.yield %s : index
  }
  "test.use"(%r) : (index) -> ()
}

// CHECK-LABEL: llvm.func @carried_once
// CHECK: %[[INIT:.*]] = arith.constant 7 : index
// CHECK: %[[R:.*]] = scf.if %{{.*}} -> (index) {
// CHECK: %[[S:.*]] = arith.addi %[[INIT]], %{{.*}} : index
// CHECK-NEXT: scf.yield %[[S]] : index
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[INIT]] : index
// CHECK: "test.use"(%[[R]])
tile.kernel @carried_once(%n: index) launch(warpgroups = 1) {
  %c7 = arith.constant 7 : index
  %r = tile.foreach_tile (%i) in (%n) iter_args(%a = %c7) -> (index) {
    %s = arith.addi %a, %i : index
    tile.yield %s : index
  }
  "test.use"(%r) : (index) -> ()
}

// CHECK-LABEL: llvm.func @carried_dynamic
// CHECK: %[[INIT:.*]] = arith.constant 7 : index
// CHECK: %[[R:.*]]:3 = scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %[[INIT]]) : (index, index) -> (index, index, index) {
// CHECK: scf.condition(%{{.*}}) %{{.*}}, %{{.*}}, %{{.*}} : index, index, index
// CHECK: ^bb0(%{{.*}}: index, %[[TILE:.*]]: index, %[[A:.*]]: index):
// CHECK: %[[S:.*]] = arith.addi %[[A]], %[[TILE]] : index
// CHECK-NEXT: scf.yield %{{.*}}, %[[S]] : index, index
// CHECK: "test.use"(%[[R]]#2)
tile.kernel @carried_dynamic(%n: index) launch(warpgroups = 1, grid = persistent) {
  %c7 = arith.constant 7 : index
  %r = tile.foreach_tile (%i) in (%n) dynamic iter_args(%a = %c7) -> (index) {
    %s = arith.addi %a, %i : index
    tile.yield %s : index
  }
  "test.use"(%r) : (index) -> ()
}

// -----

// The table walk: a hidden pointer parameter after the scalars (ABI entry
// `tile_table`); block b's range [table[b], table[b + 1]) bounds an scf.for
// whose first carried value is the tile's ordinal, read before the loop for
// the first step and at the top of each step for the next one (invariant
// loads), the iteration counting from the range's start; iter_args follow.
// CHECK: tile.abi = {carried_table = {abi = [{kind = "scalar", param = 0 : i64, type = "i64"}, {kind = "tile_table"}]
// CHECK-LABEL: llvm.func @carried_table
// CHECK-SAME: (%{{.*}}: i64, %[[TABLE:.*]]: !llvm.ptr<1>)
// CHECK: %[[INIT:.*]] = arith.constant 7 : index
// CHECK: llvm.getelementptr %[[TABLE]]
// CHECK-NEXT: %{{.*}} = llvm.load %{{.*}} invariant {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK: llvm.load %{{.*}} invariant {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK: nvvm.read.ptx.sreg.nctaid.x
// CHECK: %[[FIRST:.*]] = llvm.load %{{.*}} invariant {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK: %[[FIRSTI:.*]] = arith.index_castui %[[FIRST]] : i32 to index
// CHECK: %[[R:.*]]:2 = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[TILE:.*]] = %[[FIRSTI]], %[[A:.*]] = %[[INIT]]) -> (index, index) {
// CHECK: arith.subi %[[I]], %{{.*}} : index
// CHECK: %[[NEXT:.*]] = llvm.load %{{.*}} invariant {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK: %[[NEXTI:.*]] = arith.index_castui %[[NEXT]] : i32 to index
// CHECK: %[[S:.*]] = arith.addi %[[A]], %[[TILE]] : index
// CHECK-NEXT: scf.yield %[[NEXTI]], %[[S]] : index, index
// CHECK: "test.use"(%[[R]]#1)
tile.kernel @carried_table(%n: index) launch(warpgroups = 1, grid = persistent) {
  %c7 = arith.constant 7 : index
  %r = tile.foreach_tile (%i) in (%n) table iter_args(%a = %c7) -> (index) {
    %s = arith.addi %a, %i : index
    tile.yield %s : index
  }
  "test.use"(%r) : (index) -> ()
}

// -----

// A producer role that does per-thread work (here a register tile) needs
// all its warps: no first-warp guard, though it only waits otherwise.
// CHECK-LABEL: llvm.func @producer_per_thread
// CHECK: nvvm.setmaxregister decrease 40
// CHECK-NOT: arith.cmpi ult, %{{.*}}, %c32
// CHECK: "test.use"
// CHECK: } else {
tile.kernel @producer_per_thread() launch(warpgroups = 3) {
  tile.warp_specialize producer(warpgroups = 1, registers = 40) {
    %x = tile.fill 1.0 : !tile.rv<64xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>
    "test.use"(%x) : (!tile.rv<64xf32, warpgroup, #tile.vec<col, #tile.mma_acc>>) -> ()
  } consumer(warpgroups = 2, registers = 232) {
  }
}

// -----

// A dynamic tile loop in a producer role that needs one warp: the whole
// role runs on that warp, so the loop may carry values (here the iteration
// count, used after it).
// CHECK-LABEL: llvm.func @dynamic_producer_carries
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: %[[FIRST:.*]] = arith.cmpi ult, %{{.*}}, %c32
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK: %[[R:.*]]:{{[0-9]+}} = scf.while
// CHECK: "test.use"(%[[R]]#
// CHECK: } else {
tile.kernel @dynamic_producer_carries(%n: index) launch(warpgroups = 3, grid = persistent) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.warp_specialize producer(warpgroups = 1, registers = 40) {
    %r = tile.foreach_tile (%i) in (%n) dynamic iter_args(%a = %c0) -> (index) {
      %next = arith.addi %a, %c1 : index
      tile.yield %next : index
    }
    "test.use"(%r) : (index) -> ()
  } consumer(warpgroups = 2, registers = 232) {
    tile.foreach_tile (%i) in (%n) dynamic {
    }
  }
}

// -----

// tile.block_id: the block's index in the grid.
// CHECK-LABEL: llvm.func @block_id
// CHECK: %[[B:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK-NEXT: %[[I:.*]] = arith.index_castui %[[B]] : i32 to index
// CHECK-NEXT: "test.use"(%[[I]]) : (index) -> ()
tile.kernel @block_id() launch(warpgroups = 1) {
  %b = tile.block_id
  "test.use"(%b) : (index) -> ()
}
