package app

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// SlowMsgKey is the app.toml key of a planted cost: "TYPE_URL=DURATION"
// makes every message of that type spin that long in its handler, in the
// block's execution (CheckTx runs no handler). It is the test chain's, for
// the benchmarks that check chainperf's gate calls a known slowdown: a
// send a few microseconds slower is a few percent of a block's execution;
// "": none.
const SlowMsgKey = "chainperf.slow-msg"

// slowMsg is the planted cost, on the SDK's circuit breaker, which every
// message's handler asks before it runs.
type slowMsg struct {
	typeURL string
	wait    time.Duration
}

func parseSlowMsg(v string) (*slowMsg, error) {
	typeURL, d, ok := strings.Cut(v, "=")
	wait, err := time.ParseDuration(d)
	if !ok || !strings.HasPrefix(typeURL, "/") || err != nil || wait < 0 || wait > time.Second {
		return nil, fmt.Errorf("%s %q: write TYPE_URL=DURATION, e.g. /cosmos.bank.v1beta1.MsgSend=20us (at most 1s)", SlowMsgKey, v)
	}
	return &slowMsg{typeURL: typeURL, wait: wait}, nil
}

// IsAllowed allows every message, after the planted cost for its type:
// CPU spun, not a sleep, so that tens of microseconds are what they say
// and cost what a slower handler would.
func (s *slowMsg) IsAllowed(_ context.Context, typeURL string) (bool, error) {
	if typeURL == s.typeURL {
		for end := time.Now().Add(s.wait); time.Now().Before(end); {
		}
	}
	return true, nil
}
