// What convert-tile-to-rocdl does not lower is an error at the op, with the
// reason; nothing is half-converted.
// RUN: tk-opt %s -split-input-file -convert-tile-to-rocdl -verify-diagnostics

module attributes {tile.target = "sm_90a"} {
  // expected-error @+1 {{'tile.kernel' op targets sm_90a; convert-tile-to-rocdl lowers AMD targets only}}
  tile.kernel @nvidia() launch(warpgroups = 1) {
  }
}

// -----

module attributes {tile.target = "gfx942"} {
  tile.kernel @form(%C: !tile.gl<?x?xf32>) launch(warpgroups = 1) {
    %a = tile.fill 0.0 : !tile.rt<32x32xbf16, warp, #tile.mfma<32x32x8, a>>
    %b = tile.alloc : !tile.st<32x32xbf16, #tile.swizzle<64>>
    // expected-error @+1 {{'tile.mma' op takes a transposed A (forms AtB, AtBt) from LDS only on AMD}}
    %d = tile.mma AtB %a, %b : !tile.rt<32x32xbf16, warp, #tile.mfma<32x32x8, a>>, !tile.st<32x32xbf16, #tile.swizzle<64>> -> !tile.rt<32x32xf32, warp, #tile.mfma<32x32x8, acc>>
  }
}

// -----

module attributes {tile.target = "gfx942"} {
  tile.kernel @open_acc() launch(warpgroups = 1) {
    %a = tile.alloc : !tile.st<64x32xbf16, #tile.swizzle<64>>
    // expected-error @+1 {{'tile.mma' op needs an MFMA accumulator layout on AMD}}
    %d = tile.mma ABt %a, %a : !tile.st<64x32xbf16, #tile.swizzle<64>>, !tile.st<64x32xbf16, #tile.swizzle<64>> -> !tile.rt<64x64xf32, block>
  }
}

// -----

module attributes {tile.target = "gfx942"} {
  tile.kernel @f16_acc() launch(warpgroups = 1) {
    %a = tile.alloc : !tile.st<64x32xf16, #tile.swizzle<64>>
    // expected-error @+1 {{'tile.mma' op accumulates in f32 only on AMD}}
    %d = tile.mma ABt %a, %a : !tile.st<64x32xf16, #tile.swizzle<64>>, !tile.st<64x32xf16, #tile.swizzle<64>> -> !tile.rt<64x64xf16, block, #tile.mfma<32x32x8, acc, waves = 2x2>>
  }
}

// -----

// The MFMAs step through K by the instruction's k (32 here): K = 48 would
// read past the tile.
module attributes {tile.target = "gfx950"} {
  tile.kernel @k_not_atom_multiple() launch(warpgroups = 1) {
    %a = tile.alloc : !tile.st<64x48xbf16, #tile.swizzle<32>>
    // expected-error @+1 {{'tile.mma' op has K = 48, not a multiple of the MFMA's k (32)}}
    %d = tile.mma ABt %a, %a : !tile.st<64x48xbf16, #tile.swizzle<32>>, !tile.st<64x48xbf16, #tile.swizzle<32>> -> !tile.rt<64x64xf32, block, #tile.mfma<16x16x32, acc, waves = 4x1>>
  }
}

// -----

module attributes {tile.target = "gfx942"} {
  tile.kernel @fp8() launch(warpgroups = 1) {
    %a = tile.alloc : !tile.st<64x32xf8E4M3FN, #tile.swizzle<32>>
    // expected-error @+1 {{'tile.mma' op takes bf16 or f16 operands on AMD}}
    %d = tile.mma ABt %a, %a : !tile.st<64x32xf8E4M3FN, #tile.swizzle<32>>, !tile.st<64x32xf8E4M3FN, #tile.swizzle<32>> -> !tile.rt<64x64xf32, block, #tile.mfma<32x32x8, acc, waves = 2x2>>
  }
}

// -----

module attributes {tile.target = "gfx942"} {
  tile.kernel @copy_vector(%A: !tile.gl<?xf32>, %i: index) launch(warpgroups = 1) {
    %v = tile.alloc : !tile.sv<6xf32>
    // expected-error @+1 {{'tile.copy' op needs a shared vector of a multiple of 16 bytes on AMD}}
    tile.copy %A[%i] -> %v : !tile.gl<?xf32>, !tile.sv<6xf32>
  }
}

// -----

module attributes {tile.target = "gfx942"} {
  tile.kernel @copy_narrow(%A: !tile.gl<?x?xbf16>, %i: index) launch(warpgroups = 1) {
    %s = tile.alloc : !tile.st<64x4xbf16, #tile.swizzle<0>>
    // expected-error @+1 {{'tile.copy' op needs rows of a multiple of 16 bytes on AMD}}
    tile.copy %A[%i, %i] -> %s : !tile.gl<?x?xbf16>, !tile.st<64x4xbf16, #tile.swizzle<0>>
  }
}

// -----

module attributes {tile.target = "gfx942"} {
  tile.kernel @wg_barrier() launch(warpgroups = 2) {
    %wg = tile.warpgroup_id
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %wg, %c0 : index
    scf.if %first {
      // expected-error @+1 {{'tile.barrier' op is lowered on AMD at block scope, or at warpgroup scope where no branch or loop bound around it depends on the warpgroup (CDNA has no barriers for part of a workgroup)}}
      tile.barrier warpgroup
    }
  }
}

// -----

module attributes {tile.target = "gfx942"} {
  tile.kernel @to_shared() launch(warpgroups = 1) {
    %a = tile.alloc : !tile.sv<64xf32>
    %s = tile.fill 1.0 : !tile.rv<64xf32, block, #tile.vec<row, #tile.mfma<32x32x8, acc, waves = 2x2>>>
    // expected-error @+1 {{'tile.store' op is lowered on AMD for register values to global memory and register tiles to shared memory only}}
    tile.store %s, %a : !tile.rv<64xf32, block, #tile.vec<row, #tile.mfma<32x32x8, acc, waves = 2x2>>>, !tile.sv<64xf32>
  }
}

// -----

module attributes {tile.target = "gfx942"} {
  tile.kernel @from_fragments(%F: !tile.gl<?x64xf32, fragments>, %i: index) launch(warpgroups = 1) {
    // expected-error @+1 {{'tile.load' op is lowered on AMD from global views (not in fragment order) and shared tiles and vectors to registers only}}
    %s = tile.load %F[%i, %i] : !tile.gl<?x64xf32, fragments> -> !tile.rt<64x64xf32, block, #tile.mfma<32x32x8, acc, waves = 2x2>>
  }
}

// -----

module attributes {tile.target = "gfx942"} {
  tile.kernel @semaphores() launch(warpgroups = 1) {
    %s = tile.alloc : !tile.sem
    // expected-error @+1 {{'tile.sem_init' op is not lowered to ROCDL yet}}
    tile.sem_init %s, 1 : !tile.sem
  }
}


// -----

// On AMD the LDS budget is checked here, after the passes (which may move
// shared tiles into registers), not by the verifier.
module attributes {tile.target = "gfx942"} {
  // expected-error @+1 {{'tile.kernel' op needs 131072 bytes of LDS; gfx942 has 65536}}
  tile.kernel @too_much_lds() launch(warpgroups = 1) {
    %a = tile.alloc : !tile.st<256x256xf16, #tile.swizzle<128>>
  }
}

// -----

module attributes {tile.target = "gfx942"} {
  tile.kernel @reduce_store(%G: !tile.gl<?x?xf32>, %i: index) launch(warpgroups = 1) {
    %x = tile.fill 1.0 : !tile.rt<64x64xf32, block, #tile.mfma<32x32x8, acc, waves = 2x2>>
    // expected-error @+1 {{'tile.store' op with 'reduce add' is not lowered on AMD yet}}
    tile.store %x, %G[%i, %i] reduce add : !tile.rt<64x64xf32, block, #tile.mfma<32x32x8, acc, waves = 2x2>>, !tile.gl<?x?xf32>
  }
}

// -----

module attributes {tile.target = "gfx942"} {
  tile.kernel @dynamic(%n: index) launch(warpgroups = 1, grid = persistent) {
    // expected-error @+1 {{'tile.foreach_tile' op 'dynamic' is lowered for NVIDIA targets only (its tile queue uses mbarriers)}}
    tile.foreach_tile (%i) in (%n) dynamic {
    }
  }
}

// -----

module attributes {tile.target = "gfx942"} {
  tile.kernel @table(%n: index) launch(warpgroups = 1, grid = persistent) {
    // expected-error @+1 {{'tile.foreach_tile' op 'table' is lowered for NVIDIA targets only (the AMD launcher passes no tile table)}}
    tile.foreach_tile (%i) in (%n) table {
    }
  }
}

// -----

// The LDS scratch of an exchange between waves counts against the budget.
module attributes {tile.target = "gfx942"} {
  // expected-error @+1 {{'tile.kernel' op needs 65792 bytes of LDS with the 512 bytes its exchanges between warps use; gfx942 has 65536}}
  tile.kernel @over(%L: !tile.gl<?xf32>) launch(warpgroups = 1) {
    %big = tile.alloc : !tile.st<64x510xbf16, #tile.swizzle<0>>
    %s = tile.fill 1.0 : !tile.rt<64x64xf32, block, #tile.mfma<32x32x8, acc, waves = 2x2>>
    %m = tile.row_max %s : !tile.rt<64x64xf32, block, #tile.mfma<32x32x8, acc, waves = 2x2>> -> !tile.rv<64xf32, block, #tile.vec<row, #tile.mfma<32x32x8, acc, waves = 2x2>>>
    %c0 = arith.constant 0 : index
    tile.store %m, %L[%c0] : !tile.rv<64xf32, block, #tile.vec<row, #tile.mfma<32x32x8, acc, waves = 2x2>>>, !tile.gl<?xf32>
  }
}

// -----

module attributes {tile.target = "gfx942"} {
  tile.kernel @fence_block() launch(warpgroups = 1) {
    // expected-error @+1 {{'tile.fence' op is lowered on AMD for kind async_proxy only (a no-op: CDNA has no async proxy)}}
    tile.fence block
  }
}

// -----

module attributes {tile.target = "gfx942"} {
  // expected-error @+1 {{'tile.kernel' op uses a multi-device view, which is lowered for NVIDIA only}}
  tile.kernel @peers(%g: !tile.gl<?xi32, devices = 2>) launch(warpgroups = 1) {
  }
}

// -----

module attributes {tile.target = "gfx942"} {
  tile.kernel @peer_signal(%p: !tile.gl<?xi32, devices = 2>, %i: index, %v: i32) launch(warpgroups = 1) {
    // expected-error @+1 {{'tile.signal_add' op uses a multi-device view, which is lowered for NVIDIA only}}
    tile.signal_add %p[%i], %v device %i : !tile.gl<?xi32, devices = 2>
  }
}

// -----

module attributes {tile.target = "gfx942"} {
  tile.kernel @peer_barrier(%p: !tile.gl<?xi32, devices = 2>, %i: index, %v: i32) launch(warpgroups = 1) {
    // expected-error @+1 {{'tile.device_barrier' op uses a multi-device view, which is lowered for NVIDIA only}}
    tile.device_barrier %p[%i], %v : !tile.gl<?xi32, devices = 2>
  }
}
