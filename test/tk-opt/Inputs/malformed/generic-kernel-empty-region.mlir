"tile.kernel"() ({
}) {sym_name = "k", function_type = () -> ()} : () -> ()
