package chain

import (
	"strings"
	"testing"
	"time"
)

// The state line says where the state came from, and says so when the
// state a run built could not be kept.
func TestStateRecordSays(t *testing.T) {
	at := time.Date(2026, 11, 30, 2, 14, 1, 0, time.UTC)
	for _, c := range []struct {
		r    StateRecord
		want []string
	}{
		{StateRecord{Accounts: 1000001, StoreBytes: 602e6, Node: "validator0",
			Saved: &SavedState{Restored: true, Created: at, Height: 2, Bytes: 994e6, Build: 160.3, Secs: 1.1}},
			[]string{"1000001 accounts in genesis", "602.0 MB on validator0", "started from the start state saved 2026-11-30T02:14:01Z (height 2, 994.0 MB", "took 160.3 s then), restored in 1.1 s"}},
		{StateRecord{Accounts: 302, StoreBytes: 9e6, Node: "validator0", Saved: &SavedState{Dir: "/c/k", Height: 3, Bytes: 5e6, Build: 6.1, Secs: 0.2}},
			[]string{"start state built this run (loading genesis and the first blocks 6.1 s) and saved at height 3 in 0.2 s (5.0 MB) for later runs: /c/k"}},
		{StateRecord{Accounts: 302, Node: "validator0", NotSaved: "no space left on device"},
			[]string{"could not be saved: no space left on device"}},
	} {
		got := c.r.String()
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%q lacks %q", got, w)
			}
		}
		if c.r.Saved == nil && strings.Contains(got, "start state built") {
			t.Errorf("%q says a state was built and saved", got)
		}
	}
}
