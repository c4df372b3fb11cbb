package nodelog

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestRead on lines of each format the nodes write: CometBFT's plain
// lines, the SDK's console lines with their colour codes, JSON lines, a
// panic; the counts and the first line of each kind. The harness's own
// websocket going away at teardown is no error of the node's.
func TestRead(t *testing.T) {
	log := strings.Join([]string{
		`I[2026-11-29|07:00:00.123] committed state                              module=state height=5 num_txs=0`,
		`I[2026-11-29|07:00:00.200] Reconnecting to peer                         module=p2p addr=8a@127.0.0.1:26656`,
		`E[2026-11-29|07:00:01.000] Stopping peer for error                      module=p2p peer="Peer{MConn{127.0.0.1:26656} 8a out}" err=EOF`,
		"\x1b[90m7:00AM\x1b[0m \x1b[31mERR\x1b[0m \x1b[1mfailure when running app\x1b[0m \x1b[36merr=\x1b[0m\"bind: address already in use\"",
		"\x1b[90m7:00AM\x1b[0m \x1b[32mINF\x1b[0m finalizing commit of block module=consensus height=5",
		`{"level":"error","module":"p2p","_msg":"Stopping peer for error","err":"EOF"}`,
		`{"level":"info","message":"an ERR in the words of an info line"}`,
		`panic: runtime error: invalid memory address`,
		`E[2026-11-29|07:34:55.779] Failed to read request                       module=rpc-server protocol=websocket remote=127.0.0.1:35294 err="websocket: close 1006 (abnormal closure): unexpected EOF"`,
		``,
		"I[2026-11-29|07:00:02.000] a line with \x07 a bell",
	}, "\n")
	c := Read("validator1", []byte(log))
	want := map[Kind]int{Error: 3, Panic: 1, PeerDropped: 2, Redial: 1}
	if c.Lines != 10 {
		t.Errorf("%d lines; want 10", c.Lines)
	}
	for k, n := range want {
		if c.Of[k] != n {
			t.Errorf("%s: %d; want %d", k, c.Of[k], n)
		}
	}
	if first := c.First[Error]; !strings.HasPrefix(first, "E[2026-11-29|07:00:01.000] Stopping peer for error") {
		t.Errorf("first error %q", first)
	}
	if first := c.First[Panic]; first != "panic: runtime error: invalid memory address" {
		t.Errorf("first panic %q", first)
	}
	f := Finding([]Counts{c, Read("validator0", nil)})
	if !strings.Contains(f.Note, "3 error lines") || len(f.Tables[0].Rows) != 2 || f.Tables[0].Rows[0][len(f.Tables[0].Rows[0])-1] != "panic: runtime error: invalid memory address" {
		t.Errorf("finding %+v", f)
	}
}

// FuzzRead: any bytes read as a log count every line at most once a kind
// and quote no control character.
func FuzzRead(f *testing.F) {
	f.Add([]byte("E[2026-11-29|07:00:01.000] Stopping peer for error\npanic: x\n"))
	f.Add([]byte("{\"level\":\"error\"}\n\x1b[31mERR\x1b[0m\n"))
	f.Add([]byte("12:01AM WRN x\n{\"level\":\"info\",\"time\":\"2026-11-29T23:59:30.5Z\"}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c := Read("n", b)
		for k, n := range c.Of {
			if n > c.Lines {
				t.Fatalf("%s: %d of %d lines", k, n, c.Lines)
			}
		}
		for _, s := range c.First {
			if strings.ContainsAny(s, "\x00\x07\x1b\n\r") || len(s) > 4*300 {
				t.Fatalf("first line %q", s)
			}
		}
		// Every line's stamp reads without panic, its level one of the
		// levels and its time, when it has one, with a precision.
		for line := range bytes.Lines(b) {
			s := StampOf(Plain(line), time.Unix(0, 0), time.UTC)
			if s.Level < None || s.Level > Fatal || !s.At.IsZero() && s.Within <= 0 {
				t.Fatalf("%q: %+v", line, s)
			}
		}
	})
}

// Each format's level and time; a console line's clock on the day nearest
// the run's start; a stack trace goes with its panic line.
func TestStampAndFilter(t *testing.T) {
	start := time.Date(2026, 11, 29, 23, 59, 0, 0, time.UTC)
	for _, c := range []struct {
		line   string
		level  Level
		at     string
		within time.Duration
	}{
		{`E[2026-11-30|00:00:01.250] Stopping peer for error module=p2p`, ErrorLevel, "2026-11-30T00:00:01.25Z", time.Millisecond},
		{"12:01AM WRN slow block module=state", Warn, "2026-11-30T00:01:00Z", time.Minute},
		{"11:58PM INF started", Info, "2026-11-29T23:58:00Z", time.Minute},
		{`{"level":"debug","time":"2026-11-29T23:59:30Z","message":"x"}`, Debug, "2026-11-29T23:59:30Z", time.Second},
		{`{"level":"error","time":"2026-11-29T23:59:30.5Z"}`, ErrorLevel, "2026-11-29T23:59:30.5Z", time.Millisecond},
		{"panic: oh", Fatal, "", 0},
		{"\tgoroutine 1 [running]:", None, "", 0},
		{`{"level":`, None, "", 0},
	} {
		s := StampOf([]byte(c.line), start, time.UTC)
		at := ""
		if !s.At.IsZero() {
			at = s.At.Format(time.RFC3339Nano)
		}
		if s.Level != c.level || at != c.at || s.Within != c.within {
			t.Errorf("%q: %v %q %v; want %v %q %v", c.line, s.Level, at, s.Within, c.level, c.at, c.within)
		}
	}
	log := []string{
		"I[2026-11-29|23:59:10.000] early",
		"E[2026-11-29|23:59:40.000] failed",
		"panic: oh",
		"\tgoroutine 1 [running]:",
		"I[2026-11-30|00:00:20.000] late",
		"11:59PM WRN a minute that overlaps",
		"\tits second line",
	}
	f := Filter{Min: Warn, Since: start.Add(30 * time.Second), Until: start.Add(time.Minute), Near: start, Loc: time.UTC}
	f.Reset()
	var kept []string
	for _, l := range log {
		if f.Keep([]byte(l)) {
			kept = append(kept, l)
		}
	}
	if got := strings.Join(kept, "|"); got != "E[2026-11-29|23:59:40.000] failed|panic: oh|\tgoroutine 1 [running]:|11:59PM WRN a minute that overlaps|\tits second line" {
		t.Errorf("kept %q", got)
	}
	if _, err := ParseLevel("loud"); err == nil {
		t.Error("ParseLevel(loud): no error")
	}
}

// Each kind's first and last time, and its event at the first: plain and
// console lines (the console's minute on the run's day), a panic that
// gives no time counted but not placed.
func TestEventsOnTheTimeline(t *testing.T) {
	start := time.Date(2026, 11, 29, 7, 0, 0, 0, time.UTC)
	log := strings.Join([]string{
		`E[2026-11-29|07:00:05.100] Stopping peer for error module=p2p peer=a err=EOF`,
		`I[2026-11-29|07:00:06.000] committed state module=state height=5`,
		`E[2026-11-29|07:00:09.700] Stopping peer for error module=p2p peer=b err=EOF`,
		"7:01AM ERR failure when running app err=\"x\"",
		`panic: oh`,
	}, "\n")
	c := ReadNear("validator1", []byte(log), start, time.UTC)
	if got := c.To[PeerDropped].Sub(c.From[PeerDropped]); c.Of[PeerDropped] != 2 || got != 4600*time.Millisecond {
		t.Errorf("peer dropped: %d lines over %v; want 2 over 4.6 s", c.Of[PeerDropped], got)
	}
	if _, ok := c.From[Panic]; !ok && c.Of[Panic] != 1 || ok {
		t.Errorf("panic: %d lines, placed %v; want counted, not placed", c.Of[Panic], ok)
	}
	ev := Events(c)
	var lines []string
	for _, e := range ev {
		lines = append(lines, e.At.Format("15:04:05.000")+" "+e.Detail)
	}
	want := []string{
		"07:00:05.100 validator1 logged 3 error lines, 07:00:05.100 UTC to 07:01:00.000 UTC; the first: E[2026-11-29|07:00:05.100] Stopping peer for error module=p2p peer=a err=EOF",
		"07:00:05.100 validator1 logged 2 peer dropped lines, 07:00:05.100 UTC to 07:00:09.700 UTC; the first: E[2026-11-29|07:00:05.100] Stopping peer for error module=p2p peer=a err=EOF",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	// Without the run's start a console line gives no day: not placed.
	if c := Read("v", []byte("7:01AM ERR x\n")); len(c.From) != 0 || c.Of[Error] != 1 {
		t.Errorf("Read of a console line: %+v", c)
	}
}

// BenchmarkReadFlood reads the most of a node's log a run keeps
// (store.MaxLog, 8 MiB) of a node that logs nothing but errors, timeouts
// and peers dropped, with colour codes: the heap after it (the counts are
// fixed in size, whatever the log) and the MB read a second.
// bench/traces-flood.sh runs it.
func BenchmarkReadFlood(b *testing.B) {
	lines := []string{
		"\x1b[90m3:04PM\x1b[0m \x1b[31mERR\x1b[0m failed to verify proposal module=consensus height=31 err=\"wrong signature\"\n",
		`{"level":"info","ts":"2026-11-29T15:04:05.123Z","msg":"timed out waiting for 2/3 precommits","height":32,"round":1}` + "\n",
		"I[2026-11-29|15:04:05.123] Stopping peer for error module=p2p peer=abc err=EOF\n",
	}
	var text []byte
	for i := 0; len(text) < 8<<20; i++ {
		text = append(text, lines[i%len(lines)]...)
	}
	b.SetBytes(int64(len(text)))
	var c Counts
	for range b.N {
		c = ReadNear("validator0", text, time.Date(2026, 11, 29, 15, 0, 0, 0, time.UTC), time.UTC)
	}
	b.StopTimer()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	b.ReportMetric(float64(m.HeapInuse)/(1<<20), "heap-MiB")
	runtime.KeepAlive(text) // the log itself is in the heap figure: 8 MiB of it
	if c.Lines == 0 {
		b.Fatal("no lines read")
	}
}
