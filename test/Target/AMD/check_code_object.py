"""Checks an AMD code object the way a loader would, with LLVM's tools only.

Usage: check_code_object.py KERNEL_DIR NAME CHIP [--no-spills]

Reads NAME.hsaco with llvm-readelf (ELF header, AMDGPU metadata note) and
NAME.json (the manifest), and checks: an AMDGPU HSA shared object for CHIP;
the kernel named NAME in the metadata with wave64; VGPRs (AGPRs included), SGPRs and
LDS (static + the manifest's dynamic bytes) within CHIP's limits; with
--no-spills, no scratch; and llvm-objdump disassembles MFMA instructions
from it. Prints one line with the numbers (scratch bytes per lane
included), or exits 1 naming what is wrong.
"""
import json
import os
import re
import subprocess
import sys

# Per chip: VGPRs per lane (the unified file: architectural + accumulation;
# .vgpr_count counts both), SGPRs per wave, LDS bytes per workgroup.
# SGPRs: 102 numbered + 6 for VCC, FLAT_SCRATCH and XNACK_MASK (.sgpr_count
# counts both).
LIMITS = {"gfx942": (512, 108, 65536), "gfx950": (512, 108, 163840)}


def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def main():
    folder, name, chip = sys.argv[1:4]
    no_spills = "--no-spills" in sys.argv[4:]
    hsaco = os.path.join(folder, name + ".hsaco")
    manifest = json.load(open(os.path.join(folder, name + ".json")))
    header = run("llvm-readelf", "-h", hsaco)
    if "EM_AMDGPU" not in header or "DYN" not in header:
        fail("not an AMDGPU shared object")
    if chip not in header:
        fail("ELF flags do not name " + chip)
    notes = run("llvm-readelf", "--notes", hsaco)
    if "amdhsa.target:   amdgcn-amd-amdhsa--" + chip not in notes:
        fail("metadata target is not " + chip)

    def field(key):
        found = re.search(r"\." + key + r":\s+(\d+)", notes)
        if not found:
            fail("metadata has no ." + key)
        return int(found.group(1))

    if not re.search(r"\.name:\s+" + name + r"\b", notes):
        fail("kernel " + name + " missing from the metadata")
    if field("wavefront_size") != 64:
        fail("not wave64")
    vgprs, agprs, sgprs = field("vgpr_count"), field("agpr_count"), field("sgpr_count")
    lds = field("group_segment_fixed_size") + manifest["kernels"][name]["shared_memory_bytes"]
    max_v, max_s, max_lds = LIMITS[chip]
    # The waves of a workgroup share their SIMDs' register files.
    waves = -(-manifest["kernels"][name]["threads"] // 64)
    max_v = max_v // -(-waves // 4) // 8 * 8
    if vgprs > max_v or agprs > vgprs or sgprs > max_s or lds > max_lds:
        fail("over %s's limits: %d VGPRs (%d AGPRs), %d SGPRs, %d LDS bytes" % (chip, vgprs, agprs, sgprs, lds))
    scratch = field("private_segment_fixed_size")
    if no_spills and (scratch or field("vgpr_spill_count") or field("sgpr_spill_count")):
        fail("spills to scratch")
    disassembly = run("llvm-objdump", "-d", "--mcpu=" + chip, hsaco)
    mfmas = len(re.findall(r"\bv_mfma_", disassembly))
    if not mfmas:
        fail("no MFMA instruction in the code object")
    print("OK %s %s: %d VGPRs, %d AGPRs, %d SGPRs, %d LDS bytes, %d MFMAs, "
          "%d scratch bytes" % (name, chip, vgprs, agprs, sgprs, lds, mfmas, scratch))


main()
