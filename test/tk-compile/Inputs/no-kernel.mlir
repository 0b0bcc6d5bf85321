// A module without tile kernels.
module {
}
