// wgmma matrix descriptors: each operand's low word (the 14-bit address
// field, in 16-byte units, and the leading byte offset above it) is computed
// once from its opaque shared address; each 16-wide K step adds its offset
// in 16-byte units to that word (one 32-bit add) and ORs in the constant
// high word (stride byte offset 1024 B = 64, 128-byte swizzle = mode 1 at
// bit 62: 0x40000040 << 32). B (AB form) is MN-major: LBO = 64 rows x 128 B
// = 8192 B (512 << 16), a K step is 16 rows x 128 B = 2048 B (128 units);
// A is K-major: LBO encodes as 1 (1 << 16), a K step is 32 B (2 units).
// RUN: tk-opt %s -allow-unregistered-dialect -convert-tile-to-nvvm | FileCheck %s

// CHECK-LABEL: llvm.func @descriptors
// CHECK: %[[ADDR_B:.*]] = llvm.inline_asm has_side_effects "mov.b64 $0, $1;"
// CHECK: %[[FIELD_B:.*]] = arith.andi %[[ADDR_B]], %{{.*}} : i64
// CHECK: %[[SHIFTED_B:.*]] = arith.shrui %[[FIELD_B]]
// CHECK: %[[TRUNC_B:.*]] = arith.trunci %[[SHIFTED_B]] : i64 to i32
// CHECK: %[[LBO_B:.*]] = arith.constant 33554432 : i32
// CHECK: %[[LOW_B:.*]] = arith.ori %[[TRUNC_B]], %[[LBO_B]] : i32
// CHECK: %[[ADDR_A:.*]] = llvm.inline_asm has_side_effects "mov.b64 $0, $1;"
// CHECK: %[[LBO_A:.*]] = arith.constant 65536 : i32
// CHECK: %[[LOW_A:.*]] = arith.ori %{{.*}}, %[[LBO_A]] : i32
// CHECK: nvvm.wgmma.fence.aligned
// K step 0: the low words as they are.
// CHECK: arith.extui %[[LOW_B]] : i32 to i64
// CHECK: arith.constant 4611686293305294848 : i64
// CHECK: arith.extui %[[LOW_A]] : i32 to i64
// CHECK: nvvm.wgmma.mma_async
// K steps 1-3: one add per operand.
// CHECK: arith.constant 128 : i32
// CHECK-NEXT: arith.addi %[[LOW_B]]
// CHECK: arith.constant 2 : i32
// CHECK-NEXT: arith.addi %[[LOW_A]]
// CHECK: nvvm.wgmma.mma_async
// CHECK: arith.constant 256 : i32
// CHECK-NEXT: arith.addi %[[LOW_B]]
// CHECK: arith.constant 4 : i32
// CHECK-NEXT: arith.addi %[[LOW_A]]
// CHECK: nvvm.wgmma.mma_async
// CHECK: arith.constant 384 : i32
// CHECK-NEXT: arith.addi %[[LOW_B]]
// CHECK: arith.constant 6 : i32
// CHECK-NEXT: arith.addi %[[LOW_A]]
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: arith.shrui
// CHECK: nvvm.wgmma.commit.group.sync.aligned
tile.kernel @descriptors() launch(warpgroups = 1) {
  %a = tile.alloc : !tile.st<64x64xbf16, #tile.swizzle<128>>
  %b = tile.alloc : !tile.st<64x128xbf16, #tile.swizzle<128>>
  %d = tile.mma AB %a, %b : !tile.st<64x64xbf16, #tile.swizzle<128>>, !tile.st<64x128xbf16, #tile.swizzle<128>> -> !tile.rt<64x128xf32, warpgroup, #tile.mma_acc>
  "test.use"(%d) : (!tile.rt<64x128xf32, warpgroup, #tile.mma_acc>) -> ()
}
