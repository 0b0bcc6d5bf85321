// AMD targets ignore blocks_per_sm (one workgroup per tile, no register
// budgets): the LDS budget stays the chip's whole 160 KiB, which two
// blocks of 128 KiB would not share.
// RUN: tk-opt %s | FileCheck %s
// CHECK: launch(warpgroups = 2, blocks_per_sm = 2)
// CHECK: tile.alloc : !tile.st<256x256xbf16>
module attributes {tile.target = "gfx950"} {
  tile.kernel @k() launch(warpgroups = 2, blocks_per_sm = 2) {
    %a = tile.alloc : !tile.st<256x256xbf16>
  }
}
