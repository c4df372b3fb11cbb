package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// startSinkProcess starts `chainperf sink` on a free loopback port with
// args, ended when the test ends, and returns its URL.
func startSinkProcess(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"sink", "--listen", "127.0.0.1:0"}, args...)...)
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
	return strings.TrimSpace(strings.TrimPrefix(line, "sink listening on "))
}

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
		out, code = cli(t, reg, "sink", "--listen", "127.0.0.1:0", "--work", strings.Replace(bad, "m", "s", 1))
		if code == 0 || !strings.Contains(out, "must be from 0 to 1s") {
			t.Errorf("sink --work %s: exit %d, %q; want refused with the range", bad, code, out)
		}
	}
	// Loopback unless asked, as serve and --metrics-addr.
	for _, flag := range []string{"--listen", "--ws-listen"} {
		args := []string{"sink", "--listen", "127.0.0.1:0", flag, "0.0.0.0:0"}
		out, code := cli(t, reg, args...)
		if code == 0 || !strings.Contains(out, flag+" 0.0.0.0:0 can be reached from other machines") || !strings.Contains(out, "--allow-remote") {
			t.Errorf("sink %s 0.0.0.0:0: exit %d, %q; want refused, naming --allow-remote", flag, code, out)
		}
	}
	url := startSinkProcess(t, "--delay", "30ms", "--flush-each")
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

// `chainperf load --metrics-addr` serves the run's live figures and
// chainperf's own heap profile while it sends, and stops serving when the
// command ends; a clash with a port in use is refused before any load.
func TestLoadMetricsAddr(t *testing.T) {
	reg := t.TempDir()
	url := startSinkProcess(t)

	maddr := freePort(t)
	var out strings.Builder
	load := exec.Command(binary, "load", "--rpc", url, "--rate", "200", "--duration", "6s", "--no-store", "--metrics-addr", maddr)
	load.Env = registryEnv(t, reg)
	load.Stdout, load.Stderr = &out, &out
	if err := load.Start(); err != nil {
		t.Fatal(err)
	}
	defer load.Process.Kill()
	get := func(path string) (string, error) {
		resp, err := http.Get("http://" + maddr + path)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}
	var metrics string
	var err error
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		metrics, err = get("/metrics")
		if err == nil && strings.Contains(metrics, "chainperf_sent_total") && !strings.Contains(metrics, "chainperf_sent_total 0\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no txs sent in the live metrics after 20 s (%v):\n%.1500s\nload said:\n%s", err, metrics, out.String())
		}
	}
	if heap, err := get("/debug/pprof/heap?debug=1"); err != nil || !strings.Contains(heap, "# HeapInuse = ") {
		t.Errorf("heap profile: %v\n%.500s", err, heap)
	}
	if err := load.Wait(); err != nil {
		t.Fatalf("load: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "live metrics on http://"+maddr+"/metrics") {
		t.Errorf("load did not say where its metrics are:\n%s", out.String())
	}
	if _, err := get("/metrics"); err == nil {
		t.Error("the metrics address still answers after load ended")
	}

	// The same address twice: the second load is refused with the flag named.
	hold, err := net.Listen("tcp", maddr)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close()
	got, code := cli(t, reg, "load", "--rpc", url, "--rate", "10", "--duration", "1s", "--no-store", "--metrics-addr", maddr)
	if code == 0 || !strings.Contains(got, "--metrics-addr") {
		t.Errorf("load on a metrics port in use: exit %d, %q; want refused naming --metrics-addr", code, got)
	}
}
