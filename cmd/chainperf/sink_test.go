package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// `chainperf sink --delay D` answers each broadcast D late and says in
// its stats how long its sleeps took; a delay out of range is refused
// with the range.
func TestSinkDelay(t *testing.T) {
	reg := t.TempDir()
	for _, bad := range []string{"-1s", "2m"} {
		out, code := cli(t, reg, "sink", "--listen", "127.0.0.1:0", "--delay", bad)
		if code == 0 || !strings.Contains(out, "must be from 0 to 1m") {
			t.Errorf("sink --delay %s: exit %d, %q; want refused with the range", bad, code, out)
		}
	}
	cmd := exec.Command(binary, "sink", "--listen", "127.0.0.1:0", "--delay", "30ms", "--flush-each")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "sink listening on ") {
		t.Fatalf("first line %q, %v", line, err)
	}
	go io.Copy(io.Discard, stdout)
	url := strings.TrimSpace(strings.TrimPrefix(line, "sink listening on "))
	start := time.Now()
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"broadcast_tx_sync","params":{"tx":"eD0x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if took := time.Since(start); took < 30*time.Millisecond || !strings.Contains(string(body), `"id":7`) {
		t.Errorf("answer %q after %v; want id 7 after 30ms or more", body, took)
	}
	resp, err = http.Get(url + "/chainperf/sink_stats")
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Txs       int64   `json:"txs"`
		DelayMean float64 `json:"delay_mean_ms"`
	}
	json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if st.Txs != 1 || st.DelayMean < 30 {
		t.Errorf("stats %+v; want 1 tx and a mean delay of 30 ms or more", st)
	}
}
