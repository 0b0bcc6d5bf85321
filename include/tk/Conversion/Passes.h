//===- Passes.h - Conversions out of the tile dialect -----------*- C++ -*-===//
#ifndef TK_CONVERSION_PASSES_H
#define TK_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace tk {

#define GEN_PASS_DECL
#include "tk/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tk/Conversion/Passes.h.inc"

} // namespace tk

#endif // TK_CONVERSION_PASSES_H
