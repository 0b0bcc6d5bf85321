"""Arguments for multi-device views (`!tile.gl<..., devices = N>`): one
tensor of the same shape per device index, usually one on each GPU of a
node (peer access to a symmetric allocation, one process per GPU), or
several in this GPU's own memory (all_gather_gemm's shards).

`DeviceViews` is what a launch passes for such a parameter: this process's
tensor, the device addresses of every copy in device order, and this
process's index among them. `symmetric_empty` allocates one through
PyTorch's symmetric memory (peer-to-peer only: multicast objects are never
created, and the environment variables that keep NCCL, PyTorch and NVSHMEM
from using NVLink multicast are set before they load).
"""
import os
import sys
import warnings

# NVLink multicast (NVLS) stays off: the machines this runs on share their
# GPUs, and a program that uses multicast can take them out of service.
NO_MULTICAST = {"NCCL_NVLS_ENABLE": "0",
                "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
                "NVSHMEM_DISABLE_NVLS": "1"}
for _name, _value in NO_MULTICAST.items():
    os.environ[_name] = _value


def _warn_if_late():
    """Warns when torch.distributed already has a process group: NCCL
    reads its settings when it makes its first communicator, so the ones
    above come too late for that one."""
    dist = sys.modules.get("torch.distributed")
    try:
        late = bool(dist is not None and dist.is_available()
                    and dist.is_initialized())
    except Exception:   # a torch too old or too partial to say
        late = False
    if late:
        warnings.warn(
            "tk_mlir.multi_device was imported after torch.distributed was "
            "initialized: NCCL may have read NCCL_NVLS_ENABLE before it was "
            "set to 0 and use NVLink multicast; import tk_mlir.multi_device "
            "(or tk_mlir.ops.tensor_parallel) before init_process_group",
            RuntimeWarning, stacklevel=3)


_warn_if_late()


class DeviceViews:
    """A multi-device view's launch argument. `local` is this process's
    tensor (shape, dtype and strides of every copy); `addresses` the device
    address of each device index's copy, in device order (this process's
    at `rank`); each must be readable from this process's GPU: its own
    memory or a peer's mapped into this process (peer access)."""

    def __init__(self, local, addresses, rank):
        self.local = local
        self.addresses = tuple(int(a) for a in addresses)
        self.rank = int(rank)
        if not self.addresses:
            raise ValueError("a multi-device view needs one address per "
                             "device, got none")
        if not 0 <= self.rank < len(self.addresses):
            raise ValueError(f"rank {self.rank} is not one of the "
                             f"{len(self.addresses)} devices")
        if self.addresses[self.rank] != local.data_ptr():
            raise ValueError(f"the address of device {self.rank} "
                             f"({self.addresses[self.rank]:#x}) is not the "
                             f"local tensor's ({local.data_ptr():#x})")

    @classmethod
    def from_symmetric(cls, tensor, handle):
        """The views of `tensor`, which lies in a symmetric allocation whose
        rendezvous handle (torch.distributed._symmetric_memory.rendezvous)
        is `handle`: the same offset in every device's buffer."""
        offset = tensor.data_ptr() - handle.buffer_ptrs[handle.rank]
        size = getattr(handle, "buffer_size", None)
        end = offset + tensor.numel() * tensor.element_size()
        if offset < 0 or (size is not None and end > size):
            raise ValueError(f"the tensor (bytes {offset} to {end} of the "
                             f"allocation) is not inside the symmetric "
                             f"buffer of {size} bytes")
        return cls(tensor, [p + offset for p in handle.buffer_ptrs],
                   handle.rank)

    @property
    def world(self):
        return len(self.addresses)

    # What the launcher reads of a tensor argument: the local tensor's.
    @property
    def shape(self):
        return self.local.shape

    @property
    def dtype(self):
        return self.local.dtype

    @property
    def device(self):
        return self.local.device

    @property
    def is_cuda(self):
        return self.local.is_cuda

    def stride(self):
        return self.local.stride()

    def data_ptr(self):
        return self.local.data_ptr()

    def __repr__(self):
        return (f"DeviceViews(rank {self.rank} of {self.world}, "
                f"shape {tuple(self.shape)}, {self.dtype})")


def symmetric_empty(shape, dtype, group=None):
    """A tensor of `shape` and `dtype` on this process's current GPU in
    symmetric memory, rendezvoused over `group` (default: the world), as
    DeviceViews. Collective: every process of the group calls it."""
    import torch
    import torch.distributed as dist
    import torch.distributed._symmetric_memory as symm_mem
    group = group or dist.group.WORLD
    tensor = symm_mem.empty(shape, dtype=dtype,
                            device=torch.device("cuda",
                                                torch.cuda.current_device()))
    try:
        handle = symm_mem.rendezvous(tensor, group.group_name)
    except RuntimeError:
        # PyTorch before 2.9 rendezvouses only in groups enabled first.
        symm_mem.enable_symm_mem_for_group(group.group_name)
        handle = symm_mem.rendezvous(tensor, group.group_name)
    return DeviceViews.from_symmetric(tensor, handle)
