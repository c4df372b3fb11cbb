package observe

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// resultsAnswer is a block_results answer as CometBFT v0.38 writes one
// for n kvstore txs (each with its events), the ith's code, gas and log
// from the arguments, and a finalize-block event.
func resultsAnswer(n int, code uint32, log string, data string) string {
	var txs []string
	for i := range n {
		txs = append(txs, fmt.Sprintf(`{"code":%d,"data":%s,"log":%q,"info":"","gas_wanted":"0","gas_used":"%d","events":[{"type":"app","attributes":[{"key":"creator","value":"Cosmoshi Netowoko","index":true},{"key":"key","value":"k%d","index":true},{"key":"index_key","value":"index is working","index":true},{"key":"noindex_key","value":"index is working","index":false}]}],"codespace":""}`, code, data, log, 1000+i, i))
	}
	return `{"jsonrpc":"2.0","id":-1,"result":{"height":"42","txs_results":[` + strings.Join(txs, ",") +
		`],"finalize_block_events":[{"type":"block","attributes":[{"key":"h","value":"\"42\"\u00e9\\n","index":false}]}],"validator_updates":[],"consensus_param_updates":{"block":{"max_bytes":"22020096","max_gas":"-1"}},"app_hash":"AAAAAAAAAAA="}}`
}

// slowResults is how encoding/json reads an answer into the follower's
// resultsJSON: its reading where readResults declines.
func slowResults(data []byte) ([]txJSON, bool) {
	var r resultsJSON
	if json.Unmarshal(data, &r) != nil || r.Error != nil || r.Result == nil {
		return nil, false
	}
	return r.Result.TxsResults, true
}

// readResults reads what encoding/json reads from CometBFT's answers, and
// declines what it may read otherwise: an error answer, no result, a key
// of ours in another case, escaped or twice, what is not JSON.
func TestReadResults(t *testing.T) {
	for _, tc := range []struct {
		name, answer string
		n            int
	}{
		{"none", resultsAnswer(0, 0, "", "null"), 0},
		{"one", resultsAnswer(1, 0, "", `"EgA="`), 1},
		{"failed", resultsAnswer(3, 5, "out of gas", "null"), 3},
		{"many", resultsAnswer(625, 0, "", "null"), 625},
		{"null txs", `{"jsonrpc":"2.0","id":-1,"result":{"height":"2","txs_results":null}}`, 0},
	} {
		got, ok := readResults([]byte(tc.answer))
		want, wok := slowResults([]byte(tc.answer))
		if !ok || !wok || len(got) != tc.n || !reflect.DeepEqual(normal(got), normal(want)) {
			t.Errorf("%s: %d txs (%v), encoding/json %d (%v); want the same %d", tc.name, len(got), ok, len(want), wok, tc.n)
		}
	}
	one := resultsAnswer(1, 7, "bad", `"EgA="`)
	if got, _ := readResults([]byte(one)); len(got) != 1 || got[0].Code != 7 || got[0].Gas != 1000 || got[0].Log != "bad" || string(got[0].Data) != "\x12\x00" {
		t.Errorf("one tx: %+v", got)
	}
	for name, answer := range map[string]string{
		"error":             `{"jsonrpc":"2.0","id":-1,"error":{"code":-32603,"message":"Internal error","data":"height 9 must be less than or equal to the current blockchain height 8"}}`,
		"no result":         `{"jsonrpc":"2.0","id":-1}`,
		"null result":       `{"jsonrpc":"2.0","id":-1,"result":null}`,
		"result twice":      `{"result":{"txs_results":[]},"result":{"txs_results":[{"code":1}]}}`,
		"Result":            `{"Result":{"txs_results":[{"code":1}]}}`,
		"txs_results twice": `{"result":{"txs_results":[],"txs_results":[{"code":1}]}}`,
		"TXS_results":       `{"result":{"TXS_results":[{"code":1}]}}`,
		"Code":              `{"result":{"txs_results":[{"Code":1}]}}`,
		"escaped key":       `{"result":{"txs_results":[{"co\u0064e":1}]}}`,
		"kelvin":            "{\"result\":{\"txs_results\":[{\"\u212aey\":1}]}}",
		"code as string":    `{"result":{"txs_results":[{"code":"1"}]}}`,
		"gas not a string":  `{"result":{"txs_results":[{"gas_used":5}]}}`,
		"trailing":          `{"result":{"txs_results":[]}} x`,
		"cut":               resultsAnswer(2, 0, "", "null")[:300],
		"control character": "{\"result\":{\"txs_results\":[{\"log\":\"a\x01\"}]}}",
		"bad escape":        `{"result":{"txs_results":[{"log":"\x"}]}}`,
		"bad number":        `{"result":{"height":01,"txs_results":[]}}`,
		"not an object":     `[{"result":{}}]`,
	} {
		if got, ok := readResults([]byte(answer)); ok {
			t.Errorf("%s: read %+v; want it left to encoding/json", name, got)
		}
	}
}

// normal makes an empty list and none alike, as the follower uses them.
func normal(txs []txJSON) []txJSON {
	if len(txs) == 0 {
		return nil
	}
	return txs
}

// FuzzReadResults: whatever a node writes, readResults reads what
// encoding/json reads, or declines.
func FuzzReadResults(f *testing.F) {
	f.Add(resultsAnswer(2, 0, "", `"EgA="`))
	f.Add(resultsAnswer(1, 3, "a \"quoted\" log \u2028", "null"))
	f.Add(`{"result":{"txs_results":[{"code":1,"code":2,"gas_used":"3","gas_used":null,"log":null}]}}`)
	f.Add(`{"result":{"txs_results":[{"data":"!"}]}}`)
	f.Add(`{"result":{"txs_results":[{"data":"EgA=","data":null,"log":"x","log":null,"code":7,"code":null}]}}`)
	f.Add(`{"result":{"txs_results":[{"code":07}]}}`)
	f.Add(`{"jsonrpc":"2.0","result":{"txs_results":[{"gas_used":"-0"},{"gas_used":" 1"},{"code":1e2}]},"error":null}`)
	f.Fuzz(func(t *testing.T, answer string) {
		got, ok := readResults([]byte(answer))
		if !ok {
			return
		}
		want, wok := slowResults([]byte(answer))
		if !wok {
			t.Fatalf("read %+v where encoding/json reads nothing", got)
		}
		if !reflect.DeepEqual(normal(got), normal(want)) {
			t.Fatalf("read %+v; encoding/json %+v", got, want)
		}
	})
}

// BenchmarkReadResults: readResults against encoding/json on an answer
// of 625 kvstore txs (go test -run X -bench ReadResults ./internal/observe).
func BenchmarkReadResults(b *testing.B) {
	data := []byte(resultsAnswer(625, 0, "", "null"))
	b.SetBytes(int64(len(data)))
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			if _, ok := readResults(data); !ok {
				b.Fatal("declined")
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			if _, ok := slowResults(data); !ok {
				b.Fatal("declined")
			}
		}
	})
}
