#!/usr/bin/env python3
"""A toy model of find-max's loop, to tell the controller's own spread from the chain's.

The chain: a FIFO mempool of 5000 txs; each 1 s block commits 2,200 tx/s +-5 % (Gaussian) from its
head; txs that find the mempool full are refused. The controller: chainperf's pid law as in
internal/load/feedback.go (e = (target - mean of the last `window` blocks' slowest latency) /
target, e = min(e, -refused share) when sends were refused, rate *= 1 + kp*e + kd*de), starting at
500 tx/s. A run is 90 s; its result the committed rate over the last 60 s, as find-max computes it.
Prints the mean and coefficient of variation over 20 seeded runs for a few gains.
  python3 bench/findmax-sim.py
"""
import collections, random, statistics


def run(seed, kp=0.2, kd=0.0, window=3, target=3.0, capacity=2200, mempool=5000, dur=90, settle=30):
    rnd = random.Random(seed)
    rate, queue, queued = 500.0, collections.deque(), 0.0
    values, prev_e, committed, t = [], 0.0, [], 0.0
    for _ in range(dur):
        refused = sent = 0.0
        for s in range(10):  # arrivals in tenths of a second
            n = rate / 10
            take = min(n, mempool - queued)
            refused, sent = refused + n - take, sent + n
            if take > 0:
                queue.append([t + s / 10, take])
                queued += take
        t += 1.0
        cap = capacity * (1 + rnd.gauss(0, 0.05))
        take = left = min(queued, cap)
        slowest = 0.0
        while left > 1e-9 and queue:
            at, c = queue[0]
            slowest = max(slowest, t - at)
            if c <= left:
                left -= c
                queue.popleft()
            else:
                queue[0][1] = c - left
                left = 0
        queued -= take
        committed.append(take)
        values = (values + [slowest + 0.3 + rnd.gauss(0, 0.1)])[-window:]
        e = (target - statistics.mean(values)) / target
        if refused > 0:
            e = min(e, -refused / sent)
        d, prev_e = e - prev_e, e
        rate = max(1, min(20000, rate * (1 + kp * e + kd * d)))
    w = committed[settle:]
    return sum(w) / len(w)


for cfg in [dict(), dict(kd=0.5), dict(kd=1.0), dict(kp=0.1)]:
    xs = [run(s, **cfg) for s in range(20)]
    print(cfg or "as shipped (kp 0.2)", f"mean {statistics.mean(xs):.0f} tx/s, CV {100 * statistics.stdev(xs) / statistics.mean(xs):.2f} %")
