!a = !b
!b = index
"test.op"() {direct = array<index: 1, 2>, empty = array<index>} : () -> ()
"test.op"() {spaced = array< index : 3>, aliased = array<!a: 4>} : () -> ()
