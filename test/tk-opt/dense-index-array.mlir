// MLIR 22's parser crashes on a dense array of `index` elements; tk-opt,
// tk-compile and the C API reject one with a located error and exit code 1
// before parsing (lib/Compiler/SourceCheck.cpp). Text that only looks like
// one (in a comment like this: array<index: 1>, in a string, a dialect
// type's name) goes to the parser unchanged.
// RUN: not tk-opt %S/Inputs/dense-index-array.mlir 2>&1 | FileCheck %s
// RUN: not tk-opt < %S/Inputs/dense-index-array.mlir 2>&1 | FileCheck %s --check-prefix=STDIN
// RUN: not tk-compile %S/Inputs/dense-index-array.mlir 2>&1 | FileCheck %s
// RUN: tk-opt --allow-unregistered-dialect %s | FileCheck %s --check-prefix=KEEP
// A NUL byte inside the array, which MLIR's lexer skips as whitespace:
// RUN: printf '"test.op"() {x = array<\0index: 1>} : () -> ()\n' > %t.nul.mlir
// RUN: not tk-opt %t.nul.mlir 2>&1 | FileCheck %s --check-prefix=NUL
// RUN: not tk-compile %t.nul.mlir 2>&1 | FileCheck %s --check-prefix=NUL
// NUL: nul.mlir:1:25: error: expected integer or float type, got: 'index'

// CHECK: dense-index-array.mlir:3:29: error: expected integer or float type, got: 'index' (dense arrays hold integers or floats)
// CHECK: dense-index-array.mlir:3:57: error: expected integer or float type, got: 'index'
// CHECK: dense-index-array.mlir:4:30: error: expected integer or float type, got: 'index'
// CHECK: dense-index-array.mlir:4:58: error: expected integer or float type, got: '!a', an alias of 'index'
// CHECK-NOT: error
// STDIN: <stdin>:3:29: error: expected integer or float type, got: 'index'

"test.op"() {quoted = "array<index: 1>", ints = array<i64: 1, 2>} : () -> !test.array<index>
// KEEP: "test.op"() {ints = array<i64: 1, 2>, quoted = "array<index: 1>"} : () -> !test.array<index>
