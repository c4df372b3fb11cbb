#!/usr/bin/env python3
"""How steady the machine's CPU is from one 10 s window to the next: sha256 of
1 KiB on every core for 10 s, six rounds, and the spread (CV) of the rounds'
rates. A figure measured on a shared machine cannot repeat more closely than
this. Run it with nothing else running.
    python3 bench/cpunoise.py [rounds]
"""
import hashlib
import multiprocessing as mp
import os
import statistics
import sys
import time


def work(_):
    b, n, t0 = b"x" * 1024, 0, time.perf_counter()
    while time.perf_counter() - t0 < 10:
        for _ in range(1000):
            hashlib.sha256(b).digest()
        n += 1000
    return n / (time.perf_counter() - t0)


if __name__ == "__main__":
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    cores = os.cpu_count() or 1
    rates = []
    with mp.Pool(cores) as p:
        for i in range(rounds):
            r = sum(p.map(work, range(cores)))
            rates.append(r)
            print(f"round {i+1}: {r:.0f} sha256/s on {cores} cores", flush=True)
    print(f"CV {100*statistics.stdev(rates)/statistics.mean(rates):.1f} %")
