#!/usr/bin/env python3
"""A mutation campaign against the `dem` executable (not part of the test suite: minutes).

Every shipped scene, cut to 20 steps, is mutated (numbers replaced by NaN, infinities,
overflowing, subnormal, zero or negative values; a name given twice; a byte-order mark,
carriage returns alone, an invalid UTF-8 byte, a 1 MB identifier, invisible characters;
the text cut short, a line dropped, particles crowded into one another) and each mutant is
given to `dem check`, then, when check accepts it, to `dem run` (its duration cut to 20
steps again, should the mutation have asked for a long run). Counted: panics (exit
101), signals, hangs (no exit within the time limit), and mutants that `check` accepted but
whose run failed at once (the rule: check accepts nothing that run refuses at step 0).

    python3 tests/mutation_campaign.py [--dem target/release/dem] [--mutants 1200] [--seed 7]

Prints one line per finding and the counts at the end; exits 1 if any count but the
clean refusals is not zero.
"""

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCENES = ROOT / "scenes"
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e-?\d+)?(?![\w.])")
BAD_NUMBERS = ["NaN", "inf", "-inf", "1e308", "-1e308", "1.8e308", "5e-324", "-5e-324",
               "0", "-1", "1e30", "1e-30", "1e300", "-0.0", "4294967296"]
INVISIBLE = ["\u200b", "\u200d", "\u202e", "\u00ad", "\ufeff", "\x07"]


def base_scenes():
    out = []
    for path in sorted(p for p in SCENES.glob("*.ron") if not p.name.startswith("_")):
        text = path.read_text()
        text = re.sub(r"duration:\s*[A-Za-z]+\([^)]*\)", "duration: Steps(20)", text)
        out.append((path.stem, text))
    return out


def mutate(text, rng):
    """One mutation of `text`: (kind, bytes)."""
    kind = rng.choice(["number", "number", "number", "number", "duplicate", "bom", "cr",
                       "utf8", "huge", "invisible", "truncate", "drop_line", "crowd"])
    if kind == "number":
        spots = list(NUMBER.finditer(text))
        m = rng.choice(spots)
        new = text[:m.start()] + rng.choice(BAD_NUMBERS) + text[m.end():]
        return kind, new.encode()
    if kind == "duplicate":
        m = re.search(r'materials:\s*\{\s*("[^"]+"\s*:\s*\([^)]*\))', text)
        if not m:
            return mutate(text, rng)
        entry = m.group(1)
        return kind, text.replace(entry, entry + ", " + entry, 1).encode()
    if kind == "bom":
        return kind, "\ufeff".encode() + text.encode()
    if kind == "cr":
        return kind, text.replace("\n", "\r").encode()
    if kind == "utf8":
        b = bytearray(text.encode())
        b.insert(rng.randrange(len(b)), rng.choice([0xff, 0xfe, 0xc3, 0x80]))
        return kind, bytes(b)
    if kind == "huge":
        names = list(re.finditer(r"\b[A-Z][A-Za-z]+\(", text))
        m = rng.choice(names)
        return kind, (text[:m.start()] + "Q" * 1_000_000 + text[m.end() - 1:]).encode()
    if kind == "invisible":
        names = list(re.finditer(r'"([A-Za-z_]+)"', text))
        m = rng.choice(names)
        c = rng.choice(INVISIBLE)
        at = rng.randrange(m.start(1), m.end(1) + 1)
        return kind, (text[:at] + c + text[at:]).encode()
    if kind == "truncate":
        return kind, text[: rng.randrange(len(text))].encode()
    if kind == "drop_line":
        lines = text.split("\n")
        del lines[rng.randrange(len(lines))]
        return kind, "\n".join(lines).encode()
    # crowd: radii grown a million times, or counts a hundred times
    if rng.random() < 0.5:
        new = re.sub(r"radius:\s*([\d.e-]+)", lambda m: f"radius: {float(m.group(1)) * 1e6}", text)
    else:
        new = re.sub(r"count:\s*(\d+)", lambda m: f"count: {int(m.group(1)) * 100}", text)
    return kind, new.encode()


def run(dem, args, timeout):
    try:
        p = subprocess.run([dem] + args, capture_output=True, timeout=timeout, cwd=SCENES)
        return p.returncode, p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return "hang", ""


def classify(code):
    if code == "hang":
        return "hang"
    if code == 0:
        return "ok"
    if code == 101:
        return "panic"
    if code < 0 or code >= 128:
        return "signal"
    return "refused"


def one(dem, i, name, kind, data, out, timeout):
    path = SCENES / f"_mutant_{os.getpid()}_{i}.ron"
    path.write_bytes(data)
    try:
        code, err = run(dem, ["check", path.name], timeout)
        c = classify(code)
        if c != "ok":
            return i, name, kind, "check", c, err.strip().splitlines()[-1:] if err.strip() else []
        # A mutant may ask for a long run (Steps(4294967296)): that is what it asks, not a
        # hang; the run is cut to 20 steps again.
        path.write_bytes(re.sub(rb"duration:\s*[A-Za-z]+\([^)]*\)", b"duration: Steps(20)", data))
        code, err = run(dem, ["run", path.name, "--out", str(out / str(i)), "--threads", "1",
                              "--quiet"], timeout)
        c = classify(code)
        if c == "refused":
            c = "check-ok-run-failed"
        return i, name, kind, "run", c, err.strip().splitlines()[-1:] if err.strip() else []
    finally:
        path.unlink(missing_ok=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dem", default=str(ROOT / "target/release/dem"))
    ap.add_argument("--mutants", type=int, default=1200)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    bases = base_scenes()
    work = []
    for i in range(a.mutants):
        name, text = bases[i % len(bases)]
        kind, data = mutate(text, rng)
        work.append((i, name, kind, data))
    counts = {}
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(a.jobs) as pool:
        futures = [pool.submit(one, a.dem, i, n, k, d, Path(tmp), a.timeout) for i, n, k, d in work]
        for f in futures:
            i, name, kind, stage, c, last = f.result()
            key = c if c in ("ok", "refused") else f"{c}"
            counts[key] = counts.get(key, 0) + 1
            if c not in ("ok", "refused"):
                print(f"{c}: mutant {i} ({name}, {kind}) at {stage}: {' '.join(last)[:300]}",
                      flush=True)
    print("counts:", ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    bad = sum(v for k, v in counts.items() if k not in ("ok", "refused"))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
