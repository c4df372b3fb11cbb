package store

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chainperf/chainperf/internal/results"
)

// TestLogs: node logs kept with a run come back as they went in, by node;
// a run without any has none; more than MaxLog is refused; a run still
// running is not deleted; deleting the ended run deletes its logs.
func TestLogs(t *testing.T) {
	for name, dsn := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			start := time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)
			s, r := begun(t, dsn, "20261129-060000-aaaa", start)
			if err := s.Begin(ctx, sampleRun("20261129-060000-bbbb", start), Owner{PID: 42, Start: 7, Host: "h"}); err != nil {
				t.Fatal(err)
			}
			big := bytes.Repeat([]byte("I[2026-11-29|06:00:01.000] committed state height=7\n"), 20000)
			for _, l := range []NodeLog{{Node: "validator1", Size: 9 << 20, Text: big}, {Node: "validator0", Size: 4, Text: []byte("x\x00\xff\n")}} {
				if err := s.Log(ctx, r.ID, l); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Log(ctx, r.ID, NodeLog{Node: "full0", Text: make([]byte, MaxLog+1)}); err == nil || !strings.Contains(err.Error(), "more than") {
				t.Errorf("a log over the cap: %v; want it refused", err)
			}
			got, err := s.Logs(ctx, r.ID)
			if err != nil || len(got) != 2 || got[0].Node != "validator0" || string(got[0].Text) != "x\x00\xff\n" || got[1].Size != 9<<20 || !bytes.Equal(got[1].Text, big) {
				t.Fatalf("Logs = %d logs, %v", len(got), err)
			}
			if none, err := s.Logs(ctx, "20261129-060000-bbbb"); err != nil || len(none) != 0 {
				t.Errorf("a run without logs: %d, %v", len(none), err)
			}
			if err := s.Delete(ctx, r.ID); err == nil || !strings.Contains(err.Error(), "is still running (harness pid 42 on h)") {
				t.Fatalf("delete of a running run: %v; want it refused", err)
			}
			r.Status, r.End = results.StatusInterrupted, start.Add(time.Minute)
			if err := s.Finish(ctx, r); err != nil {
				t.Fatal(err)
			}
			if err := s.Delete(ctx, r.ID); err != nil {
				t.Fatal(err)
			}
			var left int
			if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM node_logs`).Scan(&left); err != nil || left != 0 {
				t.Errorf("after delete: %d log rows, %v", left, err)
			}
		})
	}
}
