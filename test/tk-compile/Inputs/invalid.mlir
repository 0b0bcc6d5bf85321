// Not a valid program: an unknown op.
  tile.no_such_op
