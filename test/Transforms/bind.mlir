// tile-bind: scalar parameters marked `tile.bound` (by hand or by the
// `params` option) are replaced in the body by constants of their value;
// the parameters stay in the signature. Unbound parameters are left alone.
// RUN: tk-opt %s -split-input-file -allow-unregistered-dialect --pass-pipeline='builtin.module(tile.kernel(tile-bind{params=1=false,2=0.5,3=7}))' | FileCheck %s
// (on @by_hand the same option binds %flag to false and %a to 0.5.)
// RUN: tk-opt %s -split-input-file -allow-unregistered-dialect -tile-bind | FileCheck %s --check-prefix=NONE

// CHECK-LABEL: tile.kernel @by_option
// CHECK-SAME: (%[[X:.*]]: !tile.gl<?x?xf32>, %{{.*}}: i1 {tile.bound = false}, %{{.*}}: f32 {tile.bound = 5.000000e-01 : f32}, %{{.*}}: index {tile.bound = 7 : index}, %[[N:.*]]: index)
// CHECK-DAG: %[[F:.*]] = arith.constant false
// CHECK-DAG: %[[H:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG: %[[S:.*]] = arith.constant 7 : index
// CHECK: "test.use"(%[[X]], %[[F]], %[[H]], %[[S]], %[[N]])
// Without the option nothing is bound.
// NONE-LABEL: tile.kernel @by_option
// NONE-NOT: tile.bound
// NONE-NOT: arith.constant
// NONE: "test.use"(%arg0, %arg1, %arg2, %arg3, %arg4)
tile.kernel @by_option(%X: !tile.gl<?x?xf32>, %causal: i1, %s: f32, %m: index, %n: index) {
  "test.use"(%X, %causal, %s, %m, %n) : (!tile.gl<?x?xf32>, i1, f32, index, index) -> ()
}

// -----

// A binding written in the program is honoured with or without the
// option; the option agrees with it here (parameter 1 = false).
// CHECK-LABEL: tile.kernel @by_hand
// CHECK-DAG: %[[T:.*]] = arith.constant true
// CHECK-DAG: %[[F:.*]] = arith.constant false
// CHECK: %[[H:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: "test.use"(%[[T]], %[[F]], %[[H]])
// NONE-LABEL: tile.kernel @by_hand
// NONE: %[[T:.*]] = arith.constant true
// NONE-NOT: arith.constant
// NONE: "test.use"(%[[T]], %arg1, %arg2)
tile.kernel @by_hand(%causal: i1 {tile.bound = true}, %flag: i1, %a: f32, %b: i32) {
  "test.use"(%causal, %flag, %a) : (i1, i1, f32) -> ()
}
