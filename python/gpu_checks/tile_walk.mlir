// The persistent tile walk: which block runs which tile, and the tile's
// coordinates. Bounds come from the dims of X ([c, b, a]: the walk is over
// (i, j, k) in (a, b, c), i fastest); X itself is never read. For each tile
// the kernel adds 1, i, j, k and its iteration to the five counters at
// 5 * (i + a (j + b k)) of C, so a correct walk leaves every tile's five
// counters at (1, i, j, k, linear / W) with W blocks; a tile run twice or
// never, or wrong coordinates, shows. @walk_snake is the same with `snake`
// (odd rounds mirrored; the iteration is still the round), @walk_dynamic
// with `dynamic` (blocks take tiles as they ask: the iteration counts the
// block's own tiles), @walk_table with `table` (the launcher's tile table:
// the iteration is the tile's place in its block's list).
!x = !tile.gl<?x?x?xi32>
!c = !tile.gl<?xi32>

tile.kernel @walk(%X: !x, %C: !c) launch(warpgroups = 1, grid = persistent) {
  %a = tile.dim %X[2] : !x
  %b = tile.dim %X[1] : !x
  %n = tile.dim %X[0] : !x
  tile.foreach_tile (%i, %j, %k) in (%a, %b, %n) iteration(%t) {
    %jk = arith.muli %k, %b : index
    %row = arith.addi %jk, %j : index
    %ra = arith.muli %row, %a : index
    %linear = arith.addi %ra, %i : index
    %c5 = arith.constant 5 : index
    %base = arith.muli %linear, %c5 : index
    %one = arith.constant 1 : i32
    tile.signal_add %C[%base], %one : !c
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %p1 = arith.addi %base, %c1 : index
    %p2 = arith.addi %base, %c2 : index
    %p3 = arith.addi %base, %c3 : index
    %p4 = arith.addi %base, %c4 : index
    %vi = arith.index_cast %i : index to i32
    %vj = arith.index_cast %j : index to i32
    %vk = arith.index_cast %k : index to i32
    %vt = arith.index_cast %t : index to i32
    tile.signal_add %C[%p1], %vi : !c
    tile.signal_add %C[%p2], %vj : !c
    tile.signal_add %C[%p3], %vk : !c
    tile.signal_add %C[%p4], %vt : !c
  }
}

tile.kernel @walk_snake(%X: !x, %C: !c) launch(warpgroups = 1, grid = persistent) {
  %a = tile.dim %X[2] : !x
  %b = tile.dim %X[1] : !x
  %n = tile.dim %X[0] : !x
  tile.foreach_tile (%i, %j, %k) in (%a, %b, %n) snake iteration(%t) {
    %jk = arith.muli %k, %b : index
    %row = arith.addi %jk, %j : index
    %ra = arith.muli %row, %a : index
    %linear = arith.addi %ra, %i : index
    %c5 = arith.constant 5 : index
    %base = arith.muli %linear, %c5 : index
    %one = arith.constant 1 : i32
    tile.signal_add %C[%base], %one : !c
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %p1 = arith.addi %base, %c1 : index
    %p2 = arith.addi %base, %c2 : index
    %p3 = arith.addi %base, %c3 : index
    %p4 = arith.addi %base, %c4 : index
    %vi = arith.index_cast %i : index to i32
    %vj = arith.index_cast %j : index to i32
    %vk = arith.index_cast %k : index to i32
    %vt = arith.index_cast %t : index to i32
    tile.signal_add %C[%p1], %vi : !c
    tile.signal_add %C[%p2], %vj : !c
    tile.signal_add %C[%p3], %vk : !c
    tile.signal_add %C[%p4], %vt : !c
  }
}

tile.kernel @walk_table(%X: !x, %C: !c) launch(warpgroups = 1, grid = persistent) {
  %a = tile.dim %X[2] : !x
  %b = tile.dim %X[1] : !x
  %n = tile.dim %X[0] : !x
  tile.foreach_tile (%i, %j, %k) in (%a, %b, %n) table iteration(%t) {
    %jk = arith.muli %k, %b : index
    %row = arith.addi %jk, %j : index
    %ra = arith.muli %row, %a : index
    %linear = arith.addi %ra, %i : index
    %c5 = arith.constant 5 : index
    %base = arith.muli %linear, %c5 : index
    %one = arith.constant 1 : i32
    tile.signal_add %C[%base], %one : !c
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %p1 = arith.addi %base, %c1 : index
    %p2 = arith.addi %base, %c2 : index
    %p3 = arith.addi %base, %c3 : index
    %p4 = arith.addi %base, %c4 : index
    %vi = arith.index_cast %i : index to i32
    %vj = arith.index_cast %j : index to i32
    %vk = arith.index_cast %k : index to i32
    %vt = arith.index_cast %t : index to i32
    tile.signal_add %C[%p1], %vi : !c
    tile.signal_add %C[%p2], %vj : !c
    tile.signal_add %C[%p3], %vk : !c
    tile.signal_add %C[%p4], %vt : !c
  }
}

tile.kernel @walk_dynamic(%X: !x, %C: !c) launch(warpgroups = 1, grid = persistent) {
  %a = tile.dim %X[2] : !x
  %b = tile.dim %X[1] : !x
  %n = tile.dim %X[0] : !x
  tile.foreach_tile (%i, %j, %k) in (%a, %b, %n) dynamic iteration(%t) {
    %jk = arith.muli %k, %b : index
    %row = arith.addi %jk, %j : index
    %ra = arith.muli %row, %a : index
    %linear = arith.addi %ra, %i : index
    %c5 = arith.constant 5 : index
    %base = arith.muli %linear, %c5 : index
    %one = arith.constant 1 : i32
    tile.signal_add %C[%base], %one : !c
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %p1 = arith.addi %base, %c1 : index
    %p2 = arith.addi %base, %c2 : index
    %p3 = arith.addi %base, %c3 : index
    %p4 = arith.addi %base, %c4 : index
    %vi = arith.index_cast %i : index to i32
    %vj = arith.index_cast %j : index to i32
    %vk = arith.index_cast %k : index to i32
    %vt = arith.index_cast %t : index to i32
    tile.signal_add %C[%p1], %vi : !c
    tile.signal_add %C[%p2], %vj : !c
    tile.signal_add %C[%p3], %vk : !c
    tile.signal_add %C[%p4], %vt : !c
  }
}
