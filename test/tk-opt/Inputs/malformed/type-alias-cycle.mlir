!c = !d
!d = !c
"test.op"() {x = array<!c: 1>} : () -> ()
