"""The bundled kernel families: their tile programs' variants, argument
checks and launch code (tk_mlir exports the public functions; each is a
torch custom op, see tk_mlir.torch_ops)."""
