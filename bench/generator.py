#!/usr/bin/env python3
"""Generator benchmark: chainperf against k6, locust and CometBFT's loadtime, in one run, on one machine.

Every generator sends broadcast_tx_sync JSON-RPC requests to the same `chainperf sink` (which
accepts everything). The generator is pinned to CPU 0 and the sink to CPU 1 (taskset). For each
generator and target rate it runs DURATION seconds. What was delivered is counted where it arrives,
by the sink, per second (its /chainperf/sink_stats), the same way for chainperf and the peers: the
"delivered" rate is the median of the sink's per-second counts over the run's seconds but the first
and last (the steady rate), "total" what the sink got over the whole run against rate x duration.
A rate counts as sustained when the steady rate is within 1 % of the target (and, for chainperf,
the run was not bound). The gap between the steady rate and total/duration is each harness's
start and stop: locust's constant ~5 % is its users starting one wait_time after they are spawned
and its -t stopping the run before the last users' last sends (see the "edges" column).

Peers are installed here if missing, never made dependencies of chainperf:
  k6:       go install go.k6.io/k6@v0.57.0        (into $PEERS, default /tmp/chainperf-peers)
  locust:   pip install locust==2.32.4 in a venv  (in $PEERS/locust-venv)
  loadtime: go install github.com/cometbft/cometbft/test/loadtime/cmd/load@v0.38.19 (as $PEERS/load)
CometBFT's loadtime (tm-load-test) sends broadcast_tx_async over the RPC's /websocket, which the
main sink also answers (`--ws-listen`), one answer a message as a node does; loadtime reads every
answer and throws it away. It sends each second's txs in one burst at the top of the second
(tm-load-test's send period), on 2 connections at half the rate each, txs of 256 bytes.

The sink's own CPU is read from /proc for every row ("sink cpu"): a sink near 100 % of its core
would be the limit, not the generator. The sink writes answers to pipelined requests together
(fasthttp's way); a second sink writes each answer at once as CometBFT's net/http does
(`--flush-each`, the "flush-each" rows: more reads for the generator). A third answers every
request 2 ms late (`chainperf sink --delay 2ms`, also one write an answer): the slow-endpoint rows
show whether chainperf holds its rate against an endpoint that makes it keep ~100+ requests in
flight on as many connections. A fourth spends 20 us of CPU on each tx (`--work 20us`, ~42,000
tx/s at most): the "cpu-bound" rows at 1-3x that show whether chainperf holds the delivered rate
at what the target takes above its capacity instead of collapsing. Last, a CPU profile of chainperf at 50,000 tx/s
(CHAINPERF_CPUPROFILE) prints the send path's top functions.

"chainperf bursts 1s" sends as loadtime does (`--send-every 1s`: each second's txs at its start),
so the two are compared on the same schedule; plain "chainperf" sends every tx at its own time.
The "floor" rows (bench/floor) are what sending every tx at its own time costs at the least on the
machine: one thread sleeping to each wake-up, one write of ready-made requests a wake-up, the
answers read without blocking and counted, nothing parsed, hashed or recorded; "floor each tx"
wakes for every tx, "floor 500us" at most every 500 us as chainperf's pacer does below 25,000 tx/s.
A generator with a schedule that precise costs at least that much.

--before REF adds rows of chainperf built from git REF (git archive, go build) at the low and
middle rates, so a change to the generator is measured against the build before it in the same run
on the same sink.

--saturate C runs only the above-capacity rows instead: chainperf at 1, 1.5, 2 and 3 times C tx/s
(C: about the most the sink takes from it, one request a tx), --repeats times each (with --before,
the build before too), and says for each rate the delivered rate as a share of the most any run
delivered and the cause it was flagged with. The target: at least 95 % at every rate, node-bound.
With --sink-work W the sink spends W of CPU on each tx (`chainperf sink --work`: a node its CPU
bounds, far below what the generator can send, so C is about one core / W); with --sink-delay D it
answers each request D late (`--delay`, one write an answer).

Usage: bench/generator.py [--duration 20] [--quick] [--only chainperf,loadtime] [--no-profile] [--before REF]
       bench/generator.py --saturate 150000 [--repeats 5] [--duration 10] [--before REF] [--sink-work 20us] [--sink-delay 2ms]
"""
import argparse, json, os, re, shutil, signal, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEERS = os.environ.get("PEERS", "/tmp/chainperf-peers")
SINK = "127.0.0.1:27700"
URL = "http://" + SINK
SLOW_SINK = "127.0.0.1:27701"
SLOW_URL = "http://" + SLOW_SINK
EACH_SINK = "127.0.0.1:27702"
CPU_SINK = "127.0.0.1:27704"  # each tx costs it 20 us of CPU: ~42,000 tx/s at most
CPU_URL = "http://" + CPU_SINK
EACH_URL = "http://" + EACH_SINK
WS_SINK = "127.0.0.1:27703"  # the main sink's /websocket


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def timed(cmd, cwd=None, env=None):
    """Runs cmd pinned to CPU 0 under /usr/bin/time; returns (stdout, cpu_s, max_rss_mib)."""
    tf = tempfile.NamedTemporaryFile(delete=False)
    tf.close()
    p = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", "-o", tf.name, "taskset", "-c", "0"] + cmd,
                       capture_output=True, text=True, cwd=cwd, env=env)
    u, s, m = open(tf.name).read().split()[-3:]
    os.unlink(tf.name)
    if p.returncode != 0:
        print(p.stdout[-2000:], p.stderr[-2000:], file=sys.stderr)
    return p.stdout + p.stderr, float(u) + float(s), int(m) / 1024


def ensure_peers():
    os.makedirs(PEERS, exist_ok=True)
    k6 = os.path.join(PEERS, "k6")
    if not os.path.exists(k6):
        print("installing k6 (go install go.k6.io/k6@v0.57.0) ...", flush=True)
        sh(["go", "install", "go.k6.io/k6@v0.57.0"], env={**os.environ, "GOBIN": PEERS})
    venv = os.path.join(PEERS, "locust-venv")
    if not os.path.exists(os.path.join(venv, "bin", "locust")):
        print("installing locust 2.32.4 in a venv ...", flush=True)
        sh([sys.executable, "-m", "venv", venv])
        sh([os.path.join(venv, "bin", "pip"), "install", "-q", "locust==2.32.4"])
    loadtime = os.path.join(PEERS, "load")
    if not os.path.exists(loadtime):
        print("installing CometBFT's loadtime (go install .../test/loadtime/cmd/load@v0.38.19) ...", flush=True)
        sh(["go", "install", "github.com/cometbft/cometbft/test/loadtime/cmd/load@v0.38.19"], env={**os.environ, "GOBIN": PEERS})
    return k6, os.path.join(venv, "bin", "locust"), loadtime


def sink_stats(url=URL):
    import urllib.request
    with urllib.request.urlopen(url + "/chainperf/sink_stats") as r:
        st = json.load(r)
    return st["txs"], {int(k): v for k, v in st["per_second"].items()}


def proc_cpu(pid):
    """CPU seconds (user + system) process pid has used so far."""
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def counted(sink, fn, rate, url=URL):
    """Runs fn and returns its result with what the sink counted meanwhile, and the sink's CPU."""
    total0, per0 = sink_stats(url)
    cpu0 = proc_cpu(sink.pid)
    res = fn(rate)
    res["sink_cpu"] = proc_cpu(sink.pid) - cpu0
    total1, per = sink_stats(url)
    secs = sorted(k for k in per if per[k] != per0.get(k, 0))
    counts = [per[k] - per0.get(k, 0) for k in secs]
    middle = sorted(counts[1:-1]) or sorted(counts)
    res["delivered"] = middle[len(middle) // 2] if middle else 0
    res["total"] = total1 - total0
    return res


def run_chainperf(bin_, rate, duration, batch=1, inflight=1024, url=URL, profile=None, every=None):
    out = tempfile.mktemp(suffix=".json")
    env = dict(os.environ, CHAINPERF_CPUPROFILE=profile) if profile else None
    bursts = ["--send-every", every] if every else []
    text, cpu, rss = timed([bin_, "load", "--rpc", url, "--no-follow", "--no-store", "--rate", str(rate),
                            "--duration", f"{duration}s", "--batch", str(batch),
                            "--max-in-flight", str(inflight), "--json", out] + bursts, env=env)
    r = json.load(open(out))
    os.unlink(out)
    sent = r["ledger"]["sent"]
    g = r["generator"]
    return {"sent": sent, "achieved": sent / duration, "cpu": cpu, "rss": rss,
            "lag_p99_ms": r["ledger"]["lag"]["p99_ms"], "bound": g["bound"], "bound_by": g.get("bound_by", ""),
            "inflight": g.get("senders", 0), "conns": g.get("connections", 0)}


K6_SCRIPT = """
import http from 'k6/http';
const body = JSON.stringify({jsonrpc: '2.0', id: 1, method: 'broadcast_tx_sync', params: {tx: 'Y3A9MTIzNDU2Nzg5MA=='}});
const params = {headers: {'Content-Type': 'application/json'}};
export const options = {
  discardResponseBodies: true,
  summaryTrendStats: ['p(99)'],
  scenarios: {load: {executor: 'constant-arrival-rate', rate: __ENV.RATE, timeUnit: '1s',
    duration: __ENV.DURATION + 's', preAllocatedVUs: 200, maxVUs: 2000}},
};
export default function () { http.post('URL', body, params); }
""".replace("URL", URL)


def run_k6(k6, rate, duration):
    d = tempfile.mkdtemp()
    open(os.path.join(d, "s.js"), "w").write(K6_SCRIPT)
    text, cpu, rss = timed([k6, "run", "-q", "--no-color", "--summary-export", "sum.json",
                            "-e", f"RATE={rate}", "-e", f"DURATION={duration}", "s.js"], cwd=d)
    m = json.load(open(os.path.join(d, "sum.json")))["metrics"]
    shutil.rmtree(d)
    sent = m["http_reqs"]["count"]
    return {"sent": sent, "achieved": sent / duration, "cpu": cpu, "rss": rss,
            "dropped": m.get("dropped_iterations", {}).get("count", 0)}


LOCUST_FILE = """
from locust import constant_throughput, task
from locust.contrib.fasthttp import FastHttpUser
BODY = '{"jsonrpc":"2.0","id":1,"method":"broadcast_tx_sync","params":{"tx":"Y3A9MTIzNDU2Nzg5MA=="}}'
class Sender(FastHttpUser):
    wait_time = constant_throughput(10)
    @task
    def send(self):
        self.client.post("/", data=BODY, headers={"Content-Type": "application/json"})
"""


def run_locust(locust, rate, duration):
    d = tempfile.mkdtemp()
    open(os.path.join(d, "lf.py"), "w").write(LOCUST_FILE)
    users = max(1, rate // 10)  # each user sends 10 tx/s
    text, cpu, rss = timed([locust, "-f", "lf.py", "--headless", "-u", str(users), "-r", str(users),
                            "-t", f"{duration}s", "--host", URL, "--csv", "out", "--only-summary"], cwd=d)
    sent = 0
    for line in open(os.path.join(d, "out_stats.csv")):
        f = line.split(",")
        if len(f) > 3 and f[1] == "Aggregated":
            sent = int(f[2])
    shutil.rmtree(d)
    return {"sent": sent, "achieved": sent / duration, "cpu": cpu, "rss": rss}


def run_floor(bin_, rate, duration, quantum):
    """bench/floor: the least a sender spends to send each tx at its time (no parsing, ledger or hashing)."""
    text, cpu, rss = timed([bin_, "-url", SINK, "-rate", str(rate), "-duration", f"{duration}s", "-read", "poll",
                            "-quantum", quantum])
    m = re.search(r"(\d+) of (\d+) answered.*p99 lag ([0-9.]+) ms", text)
    if not m:
        raise RuntimeError("bench/floor: " + text[-500:])
    return {"sent": int(m.group(2)), "achieved": int(m.group(2)) / duration, "cpu": cpu, "rss": rss,
            "lag_p99_ms": float(m.group(3))}


def run_loadtime(loadtime, rate, duration, conns=2):
    d = tempfile.mkdtemp()
    text, cpu, rss = timed([loadtime, "-c", str(conns), "-r", str(rate // conns), "-T", str(duration), "-s", "256",
                            "--broadcast-tx-method", "async", "--endpoints", f"ws://{WS_SINK}/websocket",
                            "--stats-output", "stats.csv"], cwd=d)
    sent = 0
    for line in open(os.path.join(d, "stats.csv")):
        f = line.strip().split(",")
        if len(f) >= 2 and f[0] == "total_txs":
            sent = int(f[1])
    shutil.rmtree(d)
    return {"sent": sent, "achieved": sent / duration, "cpu": cpu, "rss": rss}


def saturate(a, bin_, before):
    """Above capacity: chainperf at 1-3x a rate near the sink's most, repeated."""
    cpu = open("/proc/cpuinfo").read()
    model = re.search(r"model name\s*:\s*(.*)", cpu).group(1)
    slowed = (["--work", a.sink_work] if a.sink_work else []) + (["--delay", a.sink_delay, "--flush-each"] if a.sink_delay else [])
    print(f"# {model}, {os.cpu_count()} cores, {time.strftime('%Y-%m-%d %H:%M')}; generator on CPU 0, sink on CPU 1, {a.duration} s a run, {a.repeats} runs a rate; sink {' '.join(slowed) or 'plain'}")
    sink = subprocess.Popen(["taskset", "-c", "1", bin_, "sink", "--listen", SINK] + slowed, stdout=subprocess.DEVNULL)
    time.sleep(0.5)
    builds = [("chainperf", bin_)] + ([(f"chainperf {a.before}", before)] if before else [])
    rows = []
    try:
        print(f"{'generator':<20} {'target/s':>9} {'run':>3} {'delivered/s':>11} {'sink cpu':>8} {'conns':>5} {'bound by':>9}")
        for i in range(a.repeats):
            for name, b in builds:
                for f in (1, 1.5, 2, 3):
                    rate = int(a.saturate * f)
                    r = counted(sink, lambda x: run_chainperf(b, x, a.duration), rate)
                    by = r.get("bound_by") or ("-" if not r["bound"] else "?")
                    rows.append((name, f, r["delivered"], by))
                    print(f"{name:<20} {rate:>9} {i + 1:>3} {r['delivered']:>11.0f} {100 * r['sink_cpu'] / a.duration:>7.0f}% {r['conns']:>5} {by:>9}", flush=True)
    finally:
        sink.send_signal(signal.SIGTERM)
        sink.wait()
    best = max(d for _, _, d, _ in rows)
    print(f"the most delivered in any run: {best:.0f} tx/s")
    for name, _ in builds:
        for f in (1, 1.5, 2, 3):
            ds = sorted(d for n, g, d, _ in rows if n == name and g == f)
            causes = sorted({c for n, g, _, c in rows if n == name and g == f})
            ok = sum(d >= 0.95 * best for d in ds)
            print(f"{name} at {f}x: delivered {100 * ds[0] / best:.0f}-{100 * ds[-1] / best:.0f} % of the most "
                  f"(median {100 * ds[len(ds) // 2] / best:.0f} %), {ok} of {len(ds)} runs at 95 % or more; flagged: {', '.join(causes)}")


def sustained(res, rate):
    return abs(res["delivered"] - rate) <= 0.01 * rate and not res.get("bound") and not res.get("dropped")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--duration", type=int, default=20)
    ap.add_argument("--quick", action="store_true", help="fewer rates")
    ap.add_argument("--only", help="run only generators whose name starts with one of these, comma-separated (chainperf, floor, k6, locust, loadtime)")
    ap.add_argument("--before", help="also run chainperf built from this git ref (rows 'chainperf REF')")
    ap.add_argument("--saturate", type=int, help="only the above-capacity rows: 1-3x this rate")
    ap.add_argument("--repeats", type=int, default=5, help="runs a rate with --saturate")
    ap.add_argument("--sink-work", help="with --saturate: CPU each tx costs the sink (chainperf sink --work), e.g. 20us")
    ap.add_argument("--sink-delay", help="with --saturate: the sink answers each request this late (chainperf sink --delay), e.g. 2ms")
    ap.add_argument("--rates", help="run only these rates, comma-separated (e.g. 10000)")
    ap.add_argument("--no-profile", action="store_true", help="skip the CPU profile at 50,000 tx/s")
    a = ap.parse_args()
    work = tempfile.mkdtemp()
    try:
        bench(a, work)
    finally:
        shutil.rmtree(work)


def bench(a, work):
    bin_ = os.path.join(work, "chainperf")
    sh(["go", "build", "-o", bin_, "./cmd/chainperf"], cwd=ROOT)
    floor = os.path.join(work, "floor")
    sh(["go", "build", "-o", floor, "./bench/floor"], cwd=ROOT)
    only = a.only.split(",") if a.only else None
    wanted = lambda name: not only or any(name.startswith(o) for o in only)
    before = None
    if a.before:
        src = os.path.join(work, "before")
        os.makedirs(src)
        sh(f"git archive {a.before} | tar -x -C {src}", shell=True, cwd=ROOT)
        before = os.path.join(work, "chainperf-before")
        sh(["go", "build", "-o", before, "./cmd/chainperf"], cwd=src)
    if a.saturate:
        saturate(a, bin_, before)
        return
    k6, locust, loadtime = ensure_peers() if any(wanted(n) for n in ("k6", "locust", "loadtime")) else (None, None, None)
    cpu = open("/proc/cpuinfo").read()
    model = re.search(r"model name\s*:\s*(.*)", cpu).group(1)
    print(f"# {model}, {os.cpu_count()} cores, {time.strftime('%Y-%m-%d')}; generator on CPU 0, sink on CPU 1, {a.duration} s per rate")
    sink = subprocess.Popen(["taskset", "-c", "1", bin_, "sink", "--listen", SINK, "--ws-listen", WS_SINK], stdout=subprocess.DEVNULL)
    slow = subprocess.Popen(["taskset", "-c", "1", bin_, "sink", "--listen", SLOW_SINK, "--delay", "2ms"], stdout=subprocess.DEVNULL)
    each = subprocess.Popen(["taskset", "-c", "1", bin_, "sink", "--listen", EACH_SINK, "--flush-each"], stdout=subprocess.DEVNULL)
    cpubound = subprocess.Popen(["taskset", "-c", "1", bin_, "sink", "--listen", CPU_SINK, "--work", "20us"], stdout=subprocess.DEVNULL)
    time.sleep(0.5)
    try:
        plans = [
            ("chainperf", sink, URL, lambda r: run_chainperf(bin_, r, a.duration), [1000, 5000, 10000, 20000, 50000, 100000, 150000, 200000]),
            # loadtime's schedule: each second's txs at the top of the second
            ("chainperf bursts 1s", sink, URL, lambda r: run_chainperf(bin_, r, a.duration, every="1s"), [1000, 5000, 10000, 20000, 50000]),
            ("chainperf flush-each", each, EACH_URL, lambda r: run_chainperf(bin_, r, a.duration, url=EACH_URL), [20000, 50000, 150000]),
            ("chainperf batch=100", sink, URL, lambda r: run_chainperf(bin_, r, a.duration, batch=100), [100000, 300000, 500000, 700000]),
            ("chainperf slow 2ms", slow, SLOW_URL, lambda r: run_chainperf(bin_, r, a.duration, url=SLOW_URL), [20000, 50000]),
            # above a target's capacity: the sink's CPU is the limit (~42,000 tx/s); the
            # delivered rate should stay near it at 2x and 3x, node-bound
            ("chainperf cpu-bound", cpubound, CPU_URL, lambda r: run_chainperf(bin_, r, a.duration, url=CPU_URL), [40000, 80000, 120000]),
            # the least each tx at its time can cost on this machine: one wake-up and one
            # write a tx (quantum 0), or a wake-up every 500 us at least as chainperf's pacer
            ("floor each tx", sink, URL, lambda r: run_floor(floor, r, a.duration, "0s"), [1000, 5000, 10000, 20000]),
            ("floor 500us", sink, URL, lambda r: run_floor(floor, r, a.duration, "500us"), [1000, 5000, 10000, 20000, 50000]),
            ("k6", sink, URL, lambda r: run_k6(k6, r, a.duration), [1000, 2000, 3000, 5000, 10000]),
            ("locust", sink, URL, lambda r: run_locust(locust, r, a.duration), [500, 1000, 2000, 3000, 5000]),
            ("loadtime", sink, URL, lambda r: run_loadtime(loadtime, r, a.duration), [1000, 5000, 10000, 20000, 50000, 100000]),
        ]
        if before:
            plans.insert(1, (f"chainperf {a.before}", sink, URL, lambda r: run_chainperf(before, r, a.duration), [1000, 5000, 10000, 20000, 50000]))
        if a.quick:
            plans = [(n, sk, u, f, rates[:3]) for n, sk, u, f, rates in plans]
        plans = [p for p in plans if wanted(p[0])]
        if a.rates:
            keep = {int(r) for r in a.rates.split(",")}
            plans = [(n, sk, u, f, [r for r in rates if r in keep]) for n, sk, u, f, rates in plans]
        best = {}
        print(f"{'generator':<20} {'target/s':>9} {'delivered/s':>11} {'ok':>3} {'edges':>7} {'cpu-s/1000':>10} {'sink cpu':>8} {'rss MiB':>8} {'lag p99 ms':>10} {'in flight':>9} {'conns':>5}")
        for name, sk, url, fn, rates in plans:
            for rate in rates:
                r = counted(sk, fn, rate, url)
                ok = sustained(r, rate)
                if ok:
                    best[name] = max(best.get(name, 0), rate)
                per1000 = r["cpu"] / max(1, r["total"]) * 1000
                lag = f"{r['lag_p99_ms']:.3f}" if "lag_p99_ms" in r else "-"
                # edges: what the whole run lost against rate x duration at its start and stop
                edges = 1 - r["total"] / (rate * a.duration)
                # sink cpu: the sink's share of its core over the run
                sink_share = r["sink_cpu"] / a.duration
                print(f"{name:<20} {rate:>9} {r['delivered']:>11.0f} {'yes' if ok else 'no':>3} {100 * edges:>6.1f}% {per1000:>10.4f} {100 * sink_share:>7.0f}% {r['rss']:>8.0f} {lag:>10} {r.get('inflight', '-'):>9} {r.get('conns', '-'):>5}", flush=True)
        print("highest sustained rate:", ", ".join(f"{k} {v}/s" for k, v in best.items()))
        import urllib.request
        with urllib.request.urlopen(SLOW_URL + "/chainperf/sink_stats") as r:
            d = json.load(r).get("delay_mean_ms")
        if d:
            print(f"the 2 ms sink's sleeps took {d:.2f} ms on average (a loaded sink sleeps longer than asked)")
        if wanted("chainperf"):
            # Memory in run length: the same rate for 1x and 3x the duration.
            short = run_chainperf(bin_, 5000, a.duration)
            long = run_chainperf(bin_, 5000, a.duration * 3)
            print(f"chainperf RSS at 5000 tx/s: {short['rss']:.0f} MiB after {a.duration} s, {long['rss']:.0f} MiB after {3 * a.duration} s")
        if not a.no_profile and wanted("chainperf"):
            prof = tempfile.mktemp(suffix=".pprof")
            run_chainperf(bin_, 50000, a.duration, profile=prof)
            top = subprocess.run(["go", "tool", "pprof", "-top", "-nodecount=25", bin_, prof], capture_output=True, text=True).stdout
            print("# CPU profile of chainperf at 50,000 tx/s, one request a tx (go tool pprof -top):")
            print("\n".join(top.splitlines()[3:]))
            os.unlink(prof)
    finally:
        for s in (sink, slow, each, cpubound):
            s.send_signal(signal.SIGTERM)
            s.wait()


if __name__ == "__main__":
    main()
