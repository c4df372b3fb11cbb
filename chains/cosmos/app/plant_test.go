package app

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The planted cost is read one way, refused with what to write, spent on
// the message type it names and allows every type.
func TestSlowMsg(t *testing.T) {
	for _, bad := range []string{"MsgSend=1ms", "/cosmos.bank.v1beta1.MsgSend", "/x=2s", "/x=-1ms", "/x=fast"} {
		if _, err := parseSlowMsg(bad); err == nil || !strings.Contains(err.Error(), "TYPE_URL=DURATION") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	s, err := parseSlowMsg("/cosmos.bank.v1beta1.MsgSend=3ms")
	if err != nil || s.wait != 3*time.Millisecond {
		t.Fatalf("%+v, %v", s, err)
	}
	began := time.Now()
	if ok, err := s.IsAllowed(context.Background(), "/cosmos.bank.v1beta1.MsgSend"); !ok || err != nil || time.Since(began) < 3*time.Millisecond {
		t.Fatalf("the named type: allowed %v (%v) after %s", ok, err, time.Since(began))
	}
	if ok, err := s.IsAllowed(context.Background(), "/cosmos.staking.v1beta1.MsgDelegate"); !ok || err != nil {
		t.Fatalf("another type: allowed %v (%v)", ok, err)
	}
}
