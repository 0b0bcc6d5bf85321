"tile.kernel"() ({
^bb0(%a: index):
  "tile.return"() : () -> ()
}) {sym_name = "k", function_type = (index, index) -> ()} : () -> ()
