// tile-bind's errors, at the kernel, exit code 1: a malformed entry, a
// position past the last parameter, a global view, a value the type cannot
// hold (a negative number for an unsigned type, a float past its type's
// range), a second value for a
// bound parameter.
// RUN: not tk-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-bind{params=x}))' 2>&1 | FileCheck %s --check-prefix=FORM
// RUN: not tk-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-bind{params=9=1}))' 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not tk-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-bind{params=0=1}))' 2>&1 | FileCheck %s --check-prefix=VIEW
// RUN: not tk-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-bind{params=1=maybe}))' 2>&1 | FileCheck %s --check-prefix=BOOL
// RUN: not tk-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-bind{params=3=1.5}))' 2>&1 | FileCheck %s --check-prefix=INDEX
// RUN: not tk-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-bind{params=4=300}))' 2>&1 | FileCheck %s --check-prefix=WIDTH
// RUN: not tk-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-bind{params=2=abc}))' 2>&1 | FileCheck %s --check-prefix=FLOAT
// RUN: not tk-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-bind{params=2=1e39}))' 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not tk-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-bind{params=5=false}))' 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not tk-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-bind{params=6=-1}))' 2>&1 | FileCheck %s --check-prefix=UNSIGNED
// The target pipelines take the same bindings (`bind`).
// RUN: not tk-opt %s -tile-to-nvidia="bind=9=1 cubin=false out=%t" -o /dev/null 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not tk-opt %s -tile-to-amdgpu="bind=0=1 out=%t" -o /dev/null 2>&1 | FileCheck %s --check-prefix=VIEW

// FORM: bind-errors.mlir:[[@LINE+10]]:1: error: tile-bind: expected INDEX=VALUE, got 'x'
// RANGE: bind-errors.mlir:[[@LINE+9]]:1: error: tile-bind: parameter #9 does not exist; the kernel has 7
// VIEW: bind-errors.mlir:[[@LINE+8]]:1: error: tile-bind: parameter #0 is a global view; only scalars can be bound
// BOOL: error: tile-bind: 'maybe' is not a value of parameter #1's type 'i1'
// INDEX: error: tile-bind: '1.5' is not a value of parameter #3's type 'index'
// WIDTH: error: tile-bind: '300' is not a value of parameter #4's type 'i8'
// FLOAT: error: tile-bind: 'abc' is not a value of parameter #2's type 'f32'
// HUGE: error: tile-bind: '1e39' is not a value of parameter #2's type 'f32'
// TWICE: error: tile-bind: parameter #5 is already bound to true
// UNSIGNED: error: tile-bind: '-1' is not a value of parameter #6's type 'ui8'
tile.kernel @k(%X: !tile.gl<?x?xf32>, %causal: i1, %s: f32, %n: index, %b: i8, %c: i1 {tile.bound = true}, %u: ui8) {
  tile.return
}
