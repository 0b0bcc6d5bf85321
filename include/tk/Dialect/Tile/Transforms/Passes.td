//===- Passes.td - Passes of the tile dialect --------------*- tablegen -*-===//
#ifndef TK_TILE_PASSES_TD
#define TK_TILE_PASSES_TD

include "mlir/Pass/PassBase.td"

def TilePrintLayouts : Pass<"tile-print-layouts", "::tk::tile::KernelOp"> {
  let summary = "Report where every element of each register value lives";
  let description = [{
    For every op result with a register layout, emits a remark with the
    value's fragment map (`regs`, `lanes`, `warps` modes as
    `size:(row stride, col stride)`), whether the map covers each element
    exactly once per copy, and the (register, lane, warp) of the first and
    last element. Block-scope values use the kernel's warp count. A tool for
    reading layouts and for testing the layout mechanism; it changes nothing.

    ```mlir
    %0 = tile.fill 0.0 : !tile.rt<16x16xf32, warp, #tile.row>
    // remark: regs [2:(0,1) 2:(8,0) 2:(0,8)] lanes [4:(0,2) 8:(1,0)] warps []; ...
    ```
  }];
}

#endif // TK_TILE_PASSES_TD
