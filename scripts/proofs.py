#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""README's "Proofs and their sources": every recorded proof beside the stamp of the sources it proved and today's.

    python3 scripts/proofs.py [--write]

A proof made once, on one machine, is stamped with the sources it proved (scripts/source_stamp.sh): the x86
exhaustive rows (docs/exhaustive_maxima.md, a "Sources" line per target, written by the exhaustive test when its
rows all hold), the Arm sweep of all 2^32 inputs (docs/arm-sweep/kernels; what it covers: scripts/arm_sweep.sh
--table) and each GPU run (docs/gpu-runs/<run>/sources, written by bench/gpu/check.sh). The table says, per proof,
"current" where its stamp is today's and "stale" with its stamp where the sources have moved since, so that no doc
quotes a proof of other sources as today's.

Without --write: prints the table and exits 1, with a diff, when README.md holds another one (CTest
proofs_match_their_stamps runs this: any change to the stamped sources fails it until the table is rewritten, and
then it reads stale). With --write: replaces the table in README.md.
"""
import argparse
import os
import re
import subprocess
import sys

import generated_block  # scripts/generated_block.py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")


def stamp(kind):
    return subprocess.run(["bash", os.path.join(ROOT, "scripts", "source_stamp.sh"), kind], check=True,
                          capture_output=True, text=True).stdout.strip()


def status(proven, today):
    if not proven:
        return "**no stamp recorded**: not known to be today's"
    return "current" if proven == today else f"**stale**: proved `{proven}`"


def x86_rows(today):
    text = open(os.path.join(ROOT, "docs", "exhaustive_maxima.md"), encoding="utf-8").read()
    targets = list(dict.fromkeys(re.findall(r"^\| (\w+) \| (?:forward|backward)", text, re.M)))
    cpus = dict(re.findall(r"^- CPU of the (\w+) rows: (.*)$", text, re.M))
    sources = dict(re.findall(r"^- Sources of the (\w+) rows: (.*)$", text, re.M))
    return [f"| x86 float32, every function on all 2^32 inputs within its bound: {t} | {cpus.get(t, 'unknown CPU')} "
            f"| {status(sources.get(t), today)} |" for t in targets]


def arm_rows(today):
    sweep = os.path.join(ROOT, "docs", "arm-sweep")
    proven_stamp = open(os.path.join(sweep, "kernels"), encoding="utf-8").read().strip()
    table = subprocess.run(["bash", os.path.join(ROOT, "scripts", "arm_sweep.sh"), "--table"], capture_output=True,
                           text=True, cwd=ROOT).stdout
    proven = []
    if "\nproven, every chunk equal" in table:
        for line in table.split("\nproven, every chunk equal", 1)[1].splitlines()[1:]:
            if not line.startswith("  "):
                break
            proven.append(line.strip())
    what = "; ".join(proven) or "nothing yet"
    return [f"| Arm float32 bits equal to the x86 float core's on all 2^32 inputs (grad_out 1), under qemu: {what} "
            f"| qemu-aarch64 | {status(proven_stamp, today)} |"]


def gpu_rows(today):
    runs = os.path.join(ROOT, "docs", "gpu-runs")
    rows = []
    for run in sorted(os.listdir(runs)):
        path = os.path.join(runs, run, "sources")
        proven = open(path, encoding="utf-8").read().strip() if os.path.exists(path) else ""
        rows.append(f"| The latest GPU run (docs/gpu-runs, docs/CUDA.md): the CUDA float32 results equal to the CPU "
                    f"library's on all 2^32 inputs of every function | {run.split('-')[-1].upper()} "
                    f"| {status(proven, today)} |")
    return rows[-1:]  # the latest run: what the docs quote


def table():
    cpu, cuda = stamp("cpu"), stamp("cuda")
    lines = [f"Today's sources: `{cpu}`, `{cuda}` (`scripts/source_stamp.sh`).", "",
             "| proof | where it ran | status |", "|---|---|---|"]
    return "\n".join(lines + x86_rows(cpu) + arm_rows(cpu) + gpu_rows(cuda))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--write", action="store_true", help="replace the table in README.md")
    a = p.parse_args()
    new = table()
    return generated_block.write_or_compare(README, os.path.basename(__file__), new, a.write)


if __name__ == "__main__":
    sys.exit(main())
