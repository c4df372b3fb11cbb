package sdkchain

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/chainperf/chainperf/internal/testnet"
)

const (
	// hookTime bounds one node's set-up hook.
	hookTime = 2 * time.Minute
	// hookQuote is how much of a failed hook's output its error quotes
	// (the end of it, where the reason usually is).
	hookQuote = 2 << 10
)

// runHook runs the scenario's set-up hook in n's home with what it needs
// to know in its environment; its failure is an error that quotes the end
// of what it printed.
func runHook(ctx context.Context, hook, binary, chainID string, n *testnet.Node) error {
	ctx, cancel := context.WithTimeout(ctx, hookTime)
	defer cancel()
	cmd := exec.CommandContext(ctx, hook)
	cmd.Dir = n.Home
	cmd.Env = append(os.Environ(), "CHAINPERF_NODE="+n.Name, "CHAINPERF_ROLE="+string(n.Role),
		"CHAINPERF_HOME="+n.Home, "CHAINPERF_CHAIN_ID="+chainID, "CHAINPERF_BINARY="+binary)
	var out tail
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("still running after %s", hookTime)
	}
	if err != nil {
		return fmt.Errorf("testnet.cosmos.setup_hook %s failed on %s: %v; it printed: %s", hook, n.Name, err, strings.TrimSpace(out.String()))
	}
	return nil
}

// tail keeps the last hookQuote bytes written to it.
type tail struct {
	b   bytes.Buffer
	cut bool
}

func (t *tail) Write(p []byte) (int, error) {
	t.b.Write(p)
	if over := t.b.Len() - hookQuote; over > 0 {
		t.b.Next(over)
		t.cut = true
	}
	return len(p), nil
}

func (t *tail) String() string {
	// Shown on a terminal and in reports: no control characters but lines.
	s := strings.Map(func(r rune) rune {
		if r < ' ' && r != '\n' && r != '\t' || r == 0x7f {
			return '?'
		}
		return r
	}, strings.ToValidUTF8(t.b.String(), "?"))
	if t.cut {
		return "..." + s
	}
	return s
}
