#!/usr/bin/python3
"""Builds the meshplan wheel offline from the static binary: stages the package with a
.dist-info and lets Debian's python3-wheel (`wheel pack`) write the RECORD and the archive.

usage: build_wheel.py BINARY VERSION OUT_DIR

The binary is static (no glibc or libstdc++ needed), so the wheel's tags accept any x86-64
Linux: manylinux_2_5 (= manylinux1, glibc >= 2.5) and musllinux_1_1; py3-none because only
the Python wrapper is Python code (Requires-Python >= 3.9).
"""

import os
import shutil
import subprocess
import sys

TAGS = ["py3-none-manylinux1_x86_64", "py3-none-manylinux_2_5_x86_64", "py3-none-musllinux_1_1_x86_64"]


def main():
    binary, version, out_dir = sys.argv[1:4]
    here = os.path.dirname(os.path.abspath(__file__))
    stage = os.path.join(out_dir, "wheel-stage", f"meshplan-{version}")
    shutil.rmtree(os.path.dirname(stage), ignore_errors=True)
    shutil.copytree(os.path.join(here, "python", "meshplan"), os.path.join(stage, "meshplan"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    os.makedirs(os.path.join(stage, "meshplan", "bin"))
    shutil.copy(binary, os.path.join(stage, "meshplan", "bin", "meshplan"))
    os.chmod(os.path.join(stage, "meshplan", "bin", "meshplan"), 0o755)
    info = os.path.join(stage, f"meshplan-{version}.dist-info")
    os.makedirs(info)
    with open(os.path.join(info, "METADATA"), "w", encoding="utf-8") as f:
        f.write("Metadata-Version: 2.1\n"
                "Name: meshplan\n"
                f"Version: {version}\n"
                "Summary: Plans, checks and debugs distributed training configs for verl and Megatron-LM\n"
                "Requires-Python: >=3.9\n")
    with open(os.path.join(info, "WHEEL"), "w", encoding="utf-8") as f:
        f.write("Wheel-Version: 1.0\nGenerator: meshplan packaging/build_wheel.py\nRoot-Is-Purelib: false\n")
        f.writelines(f"Tag: {tag}\n" for tag in TAGS)
    with open(os.path.join(info, "entry_points.txt"), "w", encoding="utf-8") as f:
        f.write("[console_scripts]\nmeshplan = meshplan:main\n")
    subprocess.run([sys.executable, "-m", "wheel", "pack", stage, "-d", out_dir], check=True)
    shutil.rmtree(os.path.dirname(stage))


if __name__ == "__main__":
    main()
