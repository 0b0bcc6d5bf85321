"tile.kernel"() ({
  "tile.return"() : () -> ()
}) {sym_name = "k", function_type = i32} : () -> ()
