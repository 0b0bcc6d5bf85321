//===- TileComputeOps.td - MMA, elementwise, reductions ----*- tablegen -*-===//
#ifndef TK_TILE_COMPUTEOPS_TD
#define TK_TILE_COMPUTEOPS_TD

include "tk/Dialect/Tile/IR/TileOpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Tile_MmaOp : Tile_Op<"mma", [Pure,
    OptionalTypesMatchWith<"accumulator type matches result type", "result", "acc",
                   "$_self">]> {
  let summary = "matrix multiply-accumulate in one of four transpose forms";
  let description = [{
    `D = op(A) · op(B) (+ C)` with `op` the identity or a transpose as the
    form says (`AB`, `ABt`, `AtB`, `AtBt`, TK's `mma_AB` ...). Without `acc`
    the product overwrites. Operands are register tiles or shared tiles:
    with a shared operand the mma is a warpgroup `wgmma` (result at
    warpgroup scope, M a multiple of 64); with both in registers a warp
    `mma.sync` (warp scope). `A`/`B` are bf16, f16, f8E4M3FN or f8E5M2; the
    result is f32 (or f16 for f16 inputs).

    ```mlir
    %acc2 = tile.mma AB %a, %b, %acc : !tile.st<64x64xbf16>, !tile.st<64x256xbf16> -> !tile.rt<64x256xf32, warpgroup>
    ```
  }];
  let arguments = (ins Tile_MmaForm:$form,
                       AnyTypeOf<[Tile_RegTileType, Tile_SharedTileType]>:$a,
                       AnyTypeOf<[Tile_RegTileType, Tile_SharedTileType]>:$b,
                       Optional<Tile_RegTileType>:$acc);
  let results = (outs Tile_RegTileType:$result);
  let assemblyFormat = [{
    $form $a `,` $b (`,` $acc^)? attr-dict `:` qualified(type($a)) `,`
    qualified(type($b)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_MmaAsyncOp : Tile_Op<"mma_async", [
    OptionalTypesMatchWith<"accumulator type matches result type", "result", "acc",
                   "$_self">]> {
  let summary = "UNSAFE: tile.mma that returns before the product is complete";
  let description = [{
    Operands, forms and rules as `tile.mma`, but the lowering only issues the
    MMA (one wgmma group on NVIDIA) and returns. Until a `tile.mma_wait`
    leaves fewer than the number of `tile.mma_async` issued after this one
    in flight, its result must not be read except as the accumulator of
    another `tile.mma_async`, and its shared operands must not be
    overwritten or released. TK's `mma_async` / `mma_async_wait<N>`: it lets
    one k-step's MMA overlap the next one's issue.

    ```mlir
    %next = tile.mma_async AB %a, %b, %acc : !a, !b -> !acc
    tile.mma_wait 1      // the previous step's MMA is done: release its stage
    ```
  }];
  let arguments = (ins Tile_MmaForm:$form,
                       AnyTypeOf<[Tile_RegTileType, Tile_SharedTileType]>:$a,
                       AnyTypeOf<[Tile_RegTileType, Tile_SharedTileType]>:$b,
                       Optional<Tile_RegTileType>:$acc);
  let results = (outs Tile_RegTileType:$result);
  let assemblyFormat = [{
    $form $a `,` $b (`,` $acc^)? attr-dict `:` qualified(type($a)) `,`
    qualified(type($b)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_MmaWaitOp : Tile_Op<"mma_wait"> {
  let summary = "wait until at most `pending` tile.mma_async are in flight";
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$pending);
  let assemblyFormat = "$pending attr-dict";
}

class Tile_UnaryOp<string mnemonic, string what>
    : Tile_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = "elementwise " # what;
  let arguments = (ins Tile_AnyRegister:$x);
  let results = (outs Tile_AnyRegister:$result);
  let assemblyFormat = "$x attr-dict `:` qualified(type($x))";
  let hasVerifier = 1;
}

def Tile_ExpOp : Tile_UnaryOp<"exp", "e^x">;
def Tile_Exp2Op : Tile_UnaryOp<"exp2", "2^x">;
def Tile_LogOp : Tile_UnaryOp<"log", "natural logarithm">;
def Tile_NegOp : Tile_UnaryOp<"neg", "negation">;
def Tile_AbsOp : Tile_UnaryOp<"abs", "absolute value">;

class Tile_BinaryOp<string mnemonic, string what>
    : Tile_Op<mnemonic, [Pure,
        TypesMatchWith<"result type matches lhs type", "lhs", "result", "$_self">]> {
  let summary = "elementwise " # what;
  let description = [{
    Both operands are register values of the same type, or `rhs` is an f32
    scalar applied to every element (`tile.mul %s, %scale : T, f32`). The
    op computes in the element type: for a bf16 or f16 value the scalar is
    rounded to that type first.
  }];
  let arguments = (ins Tile_AnyRegister:$lhs, AnyTypeOf<[Tile_AnyRegister, F32]>:$rhs);
  let results = (outs Tile_AnyRegister:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` custom<BinaryTypes>(type($lhs), type($rhs))
  }];
  let hasVerifier = 1;
}

def Tile_AddOp : Tile_BinaryOp<"add", "addition">;
def Tile_SubOp : Tile_BinaryOp<"sub", "subtraction">;
def Tile_MulOp : Tile_Op<"mul", [Pure,
    TypesMatchWith<"result type matches lhs type", "lhs", "result", "$_self">]> {
  let summary = "elementwise multiplication";
  let description = [{
    Both operands are register values of the same type, or `rhs` is an f32
    scalar applied to every element (`tile.mul %s, %scale : T, f32`). The
    op computes in the element type: for a bf16 or f16 value the scalar is
    rounded to that type first.

    With `skip_ones`, a thread whose elements of `rhs` are all exactly 1.0
    leaves `lhs` as it is instead of multiplying (one branch per thread; the
    result is the same either way). For rescaling an accumulator by factors
    that are usually 1, as an online softmax whose running maximum lags
    (`tile.row_max ... slack`) gives:

    ```mlir
    %o2 = tile.mul %o, %alpha_b skip_ones : !tile.rt<128x128xf32, block>
    ```
  }];
  let arguments = (ins Tile_AnyRegister:$lhs, AnyTypeOf<[Tile_AnyRegister, F32]>:$rhs,
                       UnitAttr:$skip_ones);
  let results = (outs Tile_AnyRegister:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`skip_ones` $skip_ones^)? attr-dict `:`
    custom<BinaryTypes>(type($lhs), type($rhs))
  }];
  let hasVerifier = 1;
}
def Tile_DivOp : Tile_BinaryOp<"div", "division">;
def Tile_MaxOp : Tile_BinaryOp<"max", "maximum">;
def Tile_MinOp : Tile_BinaryOp<"min", "minimum">;

def Tile_FmaOp : Tile_Op<"fma", [Pure, SameOperandsAndResultType]> {
  let summary = "elementwise fused multiply-add a·b + c";
  let arguments = (ins Tile_AnyRegister:$a, Tile_AnyRegister:$b,
                       Tile_AnyRegister:$c);
  let results = (outs Tile_AnyRegister:$result);
  let assemblyFormat = "$a `,` $b `,` $c attr-dict `:` qualified(type($a))";
  let hasVerifier = 1;
}

def Tile_CastOp : Tile_Op<"cast", [Pure]> {
  let summary = "convert the element type of a register tile or vector";
  let description = [{
    ```mlir
    %o16 = tile.cast %o : !tile.rt<64x128xf32, warpgroup> to !tile.rt<64x128xbf16, warpgroup>
    ```
  }];
  let arguments = (ins Tile_AnyRegister:$x);
  let results = (outs Tile_AnyRegister:$result);
  let assemblyFormat = [{
    $x attr-dict `:` qualified(type($x)) `to` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_ConvertLayoutOp : Tile_Op<"convert_layout", [Pure]> {
  let summary = "move a register value to another layout";
  let arguments = (ins Tile_AnyRegister:$x);
  let results = (outs Tile_AnyRegister:$result);
  let assemblyFormat = [{
    $x attr-dict `:` qualified(type($x)) `to` qualified(type($result))
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_OuterOp : Tile_Op<"outer", [Pure]> {
  let summary = "outer product of each row of two register tiles";
  let description = [{
    For `lhs` of R x A and `rhs` of R x B elements, the R x (A·B) tile whose
    row r holds the outer product of the two rows, flattened row-major:
    `result(r, i·B + j) = lhs(r, i) · rhs(r, j)`. Second-order feature maps
    are made of it: with q' = q ⊗ q and k' = k ⊗ k, q'·k' = (q·k)² (Based's
    Taylor feature map).

    Each result element needs elements of both rows that other lanes hold:
    the lowering gathers them with indexed shuffles when the rows stay in
    their warps (as for the `#tile.row` / `#tile.mma_acc` layouts of equal
    row counts), else through a shared-memory scratch (see `tile.cumsum`).

    ```mlir
    %q2 = tile.outer %q, %q : !tile.rt<64x16xf32, warpgroup>, !tile.rt<64x16xf32, warpgroup> -> !tile.rt<64x256xf32, warpgroup>
    ```
  }];
  let arguments = (ins Tile_RegTileType:$lhs, Tile_RegTileType:$rhs);
  let results = (outs Tile_RegTileType:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` qualified(type($lhs)) `,` qualified(type($rhs))
    `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_TransposeOp : Tile_Op<"transpose", [Pure]> {
  let summary = "transpose a register tile";
  let arguments = (ins Tile_RegTileType:$x);
  let results = (outs Tile_RegTileType:$result);
  let assemblyFormat = [{
    $x attr-dict `:` qualified(type($x)) `to` qualified(type($result))
  }];
  let hasVerifier = 1;
}

class Tile_ReduceOp<string mnemonic, string what>
    : Tile_Op<mnemonic, [Pure,
        OptionalTypesMatchWith<"init type matches result type", "result", "init",
                       "$_self">]> {
  let summary = what;
  let description = [{
    Reduces a register tile to a register vector; with `init` the vector is
    combined into the result (TK's accumulating form). Sums are formed in
    the tile's element type (a bf16 tile's in bf16): reduce an f32 tile for
    f32 sums.

    ```mlir
    %m = tile.row_max %s, %m_prev : !tile.rt<64x64xf32, warpgroup> -> !tile.rv<64xf32, warpgroup>
    ```
  }];
  let arguments = (ins Tile_RegTileType:$x, Optional<Tile_RegVecType>:$init);
  let results = (outs Tile_RegVecType:$result);
  let assemblyFormat = [{
    $x (`,` $init^)? attr-dict `:` qualified(type($x)) `->`
    qualified(type($result))
  }];
  let hasVerifier = 1;
}

class Tile_MaxReduceOp<string mnemonic, string what>
    : Tile_Op<mnemonic, [Pure, AttrSizedOperandSegments,
        OptionalTypesMatchWith<"init type matches result type", "result", "init",
                       "$_self">]> {
  let summary = what;
  let description = [{
    Reduces a register tile to a register vector; with `init` the vector is
    combined into the result (TK's accumulating form).

    With `slack %t` (an f32 scalar; needs `init`), the result keeps the
    `init` element wherever the tile's maximum exceeds it by at most `t`, and
    is the maximum elsewhere: a running maximum that lags by up to `t`. An
    online softmax stays exact with it (its exponents then reach up to
    `t` above 0 instead of 0), and its rescaling factors are exactly 1 where
    the maximum was kept, so `tile.mul ... skip_ones` can skip them
    (FlashAttention-4's conditional rescaling).

    ```mlir
    %m = tile.row_max %s, %m_prev : !tile.rt<64x64xf32, warpgroup> -> !tile.rv<64xf32, warpgroup>
    %m_lazy = tile.row_max %s, %m_prev slack %t : !tile.rt<64x64xf32, warpgroup> -> !tile.rv<64xf32, warpgroup>
    ```
  }];
  let arguments = (ins Tile_RegTileType:$x, Optional<Tile_RegVecType>:$init,
                       Optional<F32>:$slack);
  let results = (outs Tile_RegVecType:$result);
  let assemblyFormat = [{
    $x (`,` $init^)? (`slack` $slack^)? attr-dict `:` qualified(type($x)) `->`
    qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_RowMaxOp : Tile_MaxReduceOp<"row_max", "maximum of each row">;
def Tile_RowSumOp : Tile_ReduceOp<"row_sum", "sum of each row">;
def Tile_ColMaxOp : Tile_MaxReduceOp<"col_max", "maximum of each column">;
def Tile_ColSumOp : Tile_ReduceOp<"col_sum", "sum of each column">;

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "expand a vector to a tile along rows or columns";
  let description = [{
    `row`: the vector has one element per row and fills its row;
    `col`: one element per column, filling its column.

    ```mlir
    %mb = tile.broadcast row %m : !tile.rv<64xf32, warpgroup> to !tile.rt<64x64xf32, warpgroup>
    ```
  }];
  let arguments = (ins Tile_Axis:$axis, Tile_RegVecType:$x);
  let results = (outs Tile_RegTileType:$result);
  let assemblyFormat = [{
    $axis $x attr-dict `:` qualified(type($x)) `to` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_FillOp : Tile_Op<"fill", [Pure]> {
  let summary = "a register tile or vector with every element set to a constant";
  let arguments = (ins F64Attr:$value);
  let results = (outs Tile_AnyRegister:$result);
  let assemblyFormat = "$value attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_CausalMaskOp : Tile_Op<"causal_mask", [Pure,
    TypesMatchWith<"result type matches input type", "x", "result", "$_self">]> {
  let summary = "fill elements above the causal diagonal";
  let description = [{
    Element `(r, c)` sits at global position `(row + r, col + c)`; it is
    replaced by `fill` where `col + c > row + r` (a key after the query in
    scores S with queries along rows). With `transposed` the tile holds Sᵀ
    (keys along rows, as attention's backward computes it) and the fill goes
    where `row + r > col + c`.

    ```mlir
    %sm = tile.causal_mask %s[%q0, %k0] fill neg_inf : !tile.rt<64x64xf32, warpgroup>
    %st = tile.causal_mask %s_t[%k0, %q0] transposed fill neg_inf : !tile.rt<64x64xf32, warpgroup>
    ```
  }];
  let arguments = (ins Tile_RegTileType:$x, Index:$row, Index:$col,
                       UnitAttr:$transposed, Tile_MaskFill:$fill);
  let results = (outs Tile_RegTileType:$result);
  let assemblyFormat = [{
    $x `[` $row `,` $col `]` (`transposed` $transposed^)? `fill` $fill
    attr-dict `:` qualified(type($x))
  }];
  let hasVerifier = 1;
}

def Tile_BoundMaskOp : Tile_Op<"bound_mask", [Pure,
    TypesMatchWith<"result type matches input type", "x", "result", "$_self">]> {
  let summary = "fill elements outside [0, rows) x [0, cols)";
  let description = [{
    Element `(r, c)` at global position `(row + r, col + c)` is replaced by
    `fill` where `row + r >= rows` or `col + c >= cols` (sequence tails).

    ```mlir
    %sm = tile.bound_mask %s[%q0, %k0] within [%n, %n] fill neg_inf : !tile.rt<64x64xf32, warpgroup>
    ```
  }];
  let arguments = (ins Tile_RegTileType:$x, Index:$row, Index:$col,
                       Index:$rows, Index:$cols, Tile_MaskFill:$fill);
  let results = (outs Tile_RegTileType:$result);
  let assemblyFormat = [{
    $x `[` $row `,` $col `]` `within` ` ` `[` $rows `,` $cols `]` `fill` $fill
    attr-dict `:` qualified(type($x))
  }];
  let hasVerifier = 1;
}

def Tile_VecReduceOp : Tile_Op<"vec_reduce", [Pure]> {
  let summary = "reduce a register vector to an f32 scalar held by every thread";
  let description = [{
    Combines every element of the vector in its element type (a bf16
    vector's sum is formed in bf16, then widened to f32); every thread of
    the scope gets the result. Where the vector's elements live in several warps the
    lowering exchanges the warps' partial results through a small
    shared-memory scratch (see `tile.cumsum`).

    ```mlir
    %total = tile.vec_reduce sum %a : !tile.rv<64xf32, warpgroup>
    ```
  }];
  let arguments = (ins Tile_Combine:$combine, Tile_RegVecType:$x);
  let results = (outs F32:$result);
  let assemblyFormat = "$combine $x attr-dict `:` qualified(type($x))";
  let hasVerifier = 1;
}

def Tile_CumsumOp : Tile_Op<"cumsum", [Pure, SameOperandsAndResultType]> {
  let summary = "prefix sum of a register vector, or of each row or column of a tile";
  let description = [{
    Of a vector: element `i` of the result is the sum of elements `0 .. i`
    (inclusive) or `0 .. i-1` (`exclusive`, 0 for the first). Of a tile the
    axis is named as for the reductions: `row` sums along each row (element
    `(r, c)` sums `(r, 0 .. c)`), `col` along each column (`(0 .. r, c)`).
    Sums are formed in f32.

    The lowering scans a thread's own registers, then the lanes of a warp
    with shuffles, then the warps of the value's scope through a small
    shared-memory scratch with one barrier of the scope on each side; the
    scratch is part of the kernel's shared memory. A scan whose elements lie
    in one warp uses no scratch.

    ```mlir
    %acum = tile.cumsum %a : !tile.rv<64xf32, warpgroup>
    %before = tile.cumsum %a exclusive : !tile.rv<64xf32, warpgroup>
    %rows = tile.cumsum row %t : !tile.rt<64x64xf32, warpgroup>
    ```
  }];
  let arguments = (ins OptionalAttr<Tile_Axis>:$axis, Tile_AnyRegister:$x,
                       UnitAttr:$exclusive);
  let results = (outs Tile_AnyRegister:$result);
  let assemblyFormat = [{
    ($axis^)? $x (`exclusive` $exclusive^)? attr-dict `:` qualified(type($x))
  }];
  let hasVerifier = 1;
}

#endif // TK_TILE_COMPUTEOPS_TD
