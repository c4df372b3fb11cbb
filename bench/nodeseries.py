"""A run's node samples as a table to query: `chainperf runs export RUN --format series` read into
an in-memory SQLite table node_series (run_id, node, series, at, value), the shape the results
database had before it stored a node's round in one row."""
import csv, io, sqlite3, subprocess


def load(chainperf, db, runs):
    c = sqlite3.connect(":memory:")
    c.execute("CREATE TABLE node_series (run_id TEXT, node TEXT, series TEXT, at TEXT, value REAL)")
    for run in runs:
        out = subprocess.run([chainperf, "runs", "export", run, "--format", "series", "--db", db],
                             capture_output=True, text=True, check=True).stdout
        rows = csv.reader(io.StringIO(out))
        next(rows)  # the header
        c.executemany("INSERT INTO node_series VALUES (?, ?, ?, ?, ?)",
                      ((run, node, series, at, float(v)) for at, node, series, v in rows))
    return c
