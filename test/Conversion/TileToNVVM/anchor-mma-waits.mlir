// anchor-mma-waits (default off): a tile.mma_wait becomes a plain
// wgmma.wait_group, which ptxas moves to the top of its basic block; with the
// option on it is inline PTX that puts the wait in a block of its own (a
// uniform branch on ctaid.x = ~0 to one of two copies of the same wait), so
// ptxas keeps the work written before it before it. Every mma_wait is
// lowered the same way; tile.mma's own wait (the synchronous form) is not.
// RUN: tk-opt %s -convert-tile-to-nvvm | FileCheck %s --check-prefix=OFF
// RUN: tk-opt %s -convert-tile-to-nvvm=anchor-mma-waits=false | FileCheck %s --check-prefix=OFF
// RUN: tk-opt %s -convert-tile-to-nvvm=anchor-mma-waits=true | FileCheck %s --check-prefix=ON
// RUN: tk-opt %s -tile-to-nvidia="anchor-mma-waits=true out=%t cubin=false" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t/work_between.ptx

// OFF-LABEL: llvm.func @work_between
// OFF: nvvm.wgmma.commit.group.sync.aligned
// OFF: nvvm.wgmma.wait.group.sync.aligned 1
// OFF: llvm.fmul
// OFF: nvvm.wgmma.wait.group.sync.aligned 0
// OFF-NOT: llvm.inline_asm has_side_effects{{.*}}wgmma.wait_group
// OFF: nvvm.wgmma.commit.group.sync.aligned
// OFF-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// OFF-NOT: nvvm.wgmma.wait.group

// ON-LABEL: llvm.func @work_between
// ON: nvvm.wgmma.commit.group.sync.aligned
// ON-NOT: nvvm.wgmma.wait.group
// ON: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0A.reg .b32 r;\0Amov.u32 r, %ctaid.x;\0Asetp.eq.u32 p, r, -1;\0A@p bra.uni TK_MMA_WAIT_B;\0Awgmma.wait_group.sync.aligned 1;\0Abra.uni TK_MMA_WAIT_END;\0ATK_MMA_WAIT_B:\0Awgmma.wait_group.sync.aligned 1;\0ATK_MMA_WAIT_END:\0A}", ""
// ON: llvm.fmul
// ON: llvm.inline_asm has_side_effects {{.*}}wgmma.wait_group.sync.aligned 0;{{.*}}wgmma.wait_group.sync.aligned 0;
// The synchronous tile.mma keeps the intrinsic right after its commit.
// ON: nvvm.wgmma.commit.group.sync.aligned
// ON-NEXT: nvvm.wgmma.wait.group.sync.aligned 0

// PTX: mov.u32 r, %ctaid.x;
// PTX-NEXT: setp.eq.u32 p, r, -1;
// PTX-NEXT: @p bra.uni TK_MMA_WAIT_B;
// PTX-NEXT: wgmma.wait_group.sync.aligned 1;
// PTX-NEXT: bra.uni TK_MMA_WAIT_END;
// PTX-NEXT: TK_MMA_WAIT_B:
// PTX-NEXT: wgmma.wait_group.sync.aligned 1;
// PTX-NEXT: TK_MMA_WAIT_END:
tile.kernel @work_between(%O: !tile.gl<?x?xf32>, %s: f32) launch(warpgroups = 1) {
  %c0 = arith.constant 0 : index
  %a = tile.alloc : !tile.st<64x64xbf16, #tile.swizzle<128>>
  %b = tile.alloc : !tile.st<64x128xbf16, #tile.swizzle<128>>
  %d = tile.mma_async AB %a, %b : !tile.st<64x64xbf16, #tile.swizzle<128>>, !tile.st<64x128xbf16, #tile.swizzle<128>> -> !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
  %e = tile.mma_async AB %a, %b : !tile.st<64x64xbf16, #tile.swizzle<128>>, !tile.st<64x128xbf16, #tile.swizzle<128>> -> !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
  tile.mma_wait 1
  // Work meant to run under the second MMA.
  %f = tile.mul %d, %s : !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>, f32
  tile.mma_wait 0
  %g = tile.mma AB %a, %b, %e : !tile.st<64x64xbf16, #tile.swizzle<128>>, !tile.st<64x128xbf16, #tile.swizzle<128>> -> !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
  %h = tile.add %f, %g : !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
  tile.store %h, %O[%c0, %c0] : !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>, !tile.gl<?x?xf32>
}
