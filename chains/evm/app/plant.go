package app

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// SlowMsgKey is the app.toml key of a planted cost: "TYPE_URL=DURATION"
// makes every message of that type wait that long in its handler, inside
// the SDK's msgHandler span. It is the test chain's, for the tests and
// benchmarks that check chainperf names a slower handler; "": none.
const SlowMsgKey = "chainperf.slow-msg"

// slowMsg is the planted cost, on the SDK's circuit breaker hook, which
// every message's handler asks before it runs.
type slowMsg struct {
	typeURL string
	wait    time.Duration
}

func parseSlowMsg(v string) (*slowMsg, error) {
	typeURL, d, ok := strings.Cut(v, "=")
	wait, err := time.ParseDuration(d)
	if !ok || !strings.HasPrefix(typeURL, "/") || err != nil || wait < 0 || wait > time.Second {
		return nil, fmt.Errorf("%s %q: write TYPE_URL=DURATION, e.g. /cosmos.evm.vm.v1.MsgEthereumTx=2ms (at most 1s)", SlowMsgKey, v)
	}
	return &slowMsg{typeURL: typeURL, wait: wait}, nil
}

// IsAllowed allows every message, after the planted wait for its type.
func (s *slowMsg) IsAllowed(_ context.Context, typeURL string) (bool, error) {
	if typeURL == s.typeURL {
		time.Sleep(s.wait)
	}
	return true, nil
}
