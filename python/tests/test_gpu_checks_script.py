"""scripts/gpu_checks.sh run, with stand-ins for python3, torchrun and
nvidia-smi on PATH: which checks it runs for one GPU and for several, that
each gets --out, that a failing check shows with its result line and
makes the run fail, and that naming checks runs only those."""
import os
import stat
import subprocess

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "gpu_checks.sh")

# Each stand-in records its arguments; the cross_warp check fails.
STAND_IN = """#!/bin/sh
echo "$0 $*" >> "$CALLS"
case "$*" in
  *cross_warp.py*) echo "3 passed, 1 failed"; exit 1 ;;
esac
echo "5 passed, 0 failed"
"""
NVIDIA_SMI = """#!/bin/sh
i=0
while [ $i -lt "$GPUS" ]; do echo "GPU $i: NVIDIA H200 (UUID: x)"; \
i=$((i + 1)); done
"""


def run(tmp_path, gpus, *args):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name, text in (("python3", STAND_IN), ("torchrun", STAND_IN),
                       ("nvidia-smi", NVIDIA_SMI)):
        path = bin_dir / name
        path.write_text(text)
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    calls = tmp_path / "calls"
    if calls.exists():
        calls.unlink()
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}",
               CALLS=str(calls), GPUS=str(gpus))
    out = tmp_path / "out"
    done = subprocess.run([SCRIPT, "run", "--out", str(out), *args],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    lines = calls.read_text().splitlines() if calls.exists() else []
    return done, lines


def test_one_gpu_runs_the_single_gpu_checks(tmp_path):
    done, calls = run(tmp_path, 1)
    assert done.returncode == 1, done.stdout + done.stderr
    assert len(calls) == 11
    assert all(f"--out {tmp_path / 'out'}" in call for call in calls)
    assert not any("torchrun" in call or "devices.py" in call
                   for call in calls)
    failed = [line for line in done.stdout.splitlines()
              if line.startswith("cross_warp")]
    assert len(failed) == 1
    assert "FAILED (exit 1)" in failed[0] and "3 passed, 1 failed" in failed[0]
    assert "11 checks, 1 not ok (1 GPUs" in done.stdout
    assert (tmp_path / "out" / "logs" / "cross_warp.log").read_text() == \
        "3 passed, 1 failed\n"


def test_several_gpus_add_the_multi_gpu_checks(tmp_path):
    done, calls = run(tmp_path, 4)
    assert len(calls) == 15
    torchrun = [call for call in calls if "torchrun" in call.split()[0]]
    assert len(torchrun) == 3
    assert all("--nproc-per-node 4" in call for call in torchrun)
    assert sum("--op gemm_reduce_scatter" in c for c in torchrun) == 1
    assert sum("--op all_gather_gemm" in c for c in torchrun) == 1


def test_named_checks_only(tmp_path):
    done, calls = run(tmp_path, 1, "tile_walk", "ssd")
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(calls) == 2
    assert "tile_walk.py" in calls[0] and "ssd.py" in calls[1]
    assert "2 checks, 0 not ok" in done.stdout


def test_unknown_or_unavailable_check(tmp_path):
    done, calls = run(tmp_path, 1, "tile_walk", "tensor_parallel")
    assert done.returncode == 1
    assert "unknown or unavailable check" in done.stderr
    assert len(calls) == 1


def test_usage(tmp_path):
    done = subprocess.run([SCRIPT], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2 and "usage:" in done.stderr
