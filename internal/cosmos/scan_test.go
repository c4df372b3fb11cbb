package cosmos

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// pagedNode answers abci_query for x/bank's DenomOwners and x/auth's
// Accounts with entries made by entry, page by page as the request's
// PageRequest asks (its key the next entry's index); next says what a
// page's next key is (a hostile node's may never end); pages, if not nil,
// counts the queries. Asking for the total is an error: it walks every
// entry in one query.
func pagedNode(t *testing.T, n int, entry func(path string, i int) []byte, next func(i int) string, pages *atomic.Int64) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if pages != nil {
			pages.Add(1)
		}
		var call struct {
			Params struct{ Path, Data string }
		}
		_ = json.NewDecoder(r.Body).Decode(&call) // abci_query as a JSON-RPC POST
		path := call.Params.Path
		req, _ := hex.DecodeString(call.Params.Data)
		pageField := protowire.Number(2)
		if strings.Contains(path, "Accounts") {
			pageField = 1
		}
		var page []byte
		Fields(req, func(num protowire.Number, _ uint64, b []byte) {
			if num == pageField {
				page = b
			}
		})
		from, limit, count := 0, 0, false
		Fields(page, func(num protowire.Number, v uint64, b []byte) {
			switch num {
			case 1:
				from, _ = strconv.Atoi(string(b))
			case 3:
				limit = int(v)
			case 4:
				count = v == 1
			}
		})
		if count {
			t.Errorf("%s: asked for the total", path)
		}
		var resp []byte
		to := min(n, from+limit)
		for i := from; i < to; i++ {
			resp = appendBytes(resp, 1, entry(path, i))
		}
		if to < n || count {
			resp = appendMessage(resp, 2, func(b []byte) []byte {
				if to < n {
					b = appendString(b, 1, next(to))
				}
				if count {
					b = appendUint(b, 2, uint64(n))
				}
				return b
			})
		}
		fmt.Fprintf(w, `{"result":{"response":{"code":0,"value":%q}}}`, base64.StdEncoding.EncodeToString(resp))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A scan reads every page: 12,345 holders and accounts over three pages
// each, the module account left out; more holders than asked for at most
// end it once read past (never by the node's total); a
// node whose next key never moves, a
// holder listed twice, an account of a type not read and an amount that
// is not a number are refused with what was wrong.
func TestScansReadEveryPage(t *testing.T) {
	const n = 12345
	addr := func(i int) string { return fmt.Sprintf("ethm1wallet%05d", i) }
	entry := func(path string, i int) []byte {
		if strings.Contains(path, "DenomOwners") {
			b := appendString(nil, 1, addr(i))
			return appendMessage(b, 2, func(b []byte) []byte {
				return appendString(appendString(b, 1, "atest"), 2, strconv.Itoa(1_000_000_000_000_000_000+i))
			})
		}
		if i == 7 {
			return appendString(appendBytes(nil, 2, appendString(nil, 1, addr(i))), 1, "/cosmos.auth.v1beta1.ModuleAccount")
		}
		base := appendUint(appendString(nil, 1, addr(i)), 4, uint64(i%5))
		return appendBytes(appendString(nil, 1, "/cosmos.auth.v1beta1.BaseAccount"), 2, base)
	}
	var counted atomic.Int64
	url := pagedNode(t, n, entry, strconv.Itoa, nil)
	ctx := context.Background()
	bal, err := HolderBalances(ctx, http.DefaultClient, url, "atest", 5, n)
	if err != nil || len(bal) != n || bal[addr(12344)].String() != "1000000000000012344" {
		t.Fatalf("holders: %d, %v, last %v; want %d, the last 1000000000000012344", len(bal), err, bal[addr(12344)], n)
	}
	// More holders than asked for at most: the scan stops past them.
	if _, err := HolderBalances(ctx, http.DefaultClient, url, "atest", 5, n-1); !errors.Is(err, ErrTooMany) {
		t.Errorf("%d holders, %d at most: %v; want ErrTooMany", n, n-1, err)
	}
	if _, err := HolderBalances(ctx, http.DefaultClient, pagedNode(t, n, entry, strconv.Itoa, &counted), "atest", 5, 4999); !errors.Is(err, ErrTooMany) || counted.Load() != 1 {
		t.Errorf("%d holders, 4,999 at most: %v after %d pages; want ErrTooMany after the first", n, err, counted.Load())
	}
	seq, err := AccountSequences(ctx, http.DefaultClient, url, 5)
	if _, module := seq[addr(7)]; err != nil || len(seq) != n-1 || module || seq[addr(9)] != 4 {
		t.Fatalf("accounts: %d, %v; want %d without the module account, wallet 9 at 4", len(seq), err, n-1)
	}

	for _, c := range []struct {
		name  string
		entry func(string, int) []byte
		next  func(int) string
		scan  string // "holders" or "accounts"
		want  string
	}{
		{"pages that never end", entry, func(int) string { return "5000" }, "holders", "do not end"},
		{"a holder twice", func(p string, i int) []byte { return entry(p, i%100) }, strconv.Itoa, "holders", "listed twice"},
		{"an amount not a number", func(string, int) []byte {
			return appendMessage(appendString(nil, 1, "x"), 2, func(b []byte) []byte { return appendString(b, 2, "12e9") })
		}, strconv.Itoa, "holders", "not a whole number"},
		{"a vesting account", func(string, int) []byte {
			return appendString(nil, 1, "/cosmos.vesting.v1beta1.ContinuousVestingAccount")
		}, strconv.Itoa, "accounts", "not read"},
	} {
		url := pagedNode(t, n, c.entry, c.next, nil)
		var err error
		if c.scan == "holders" {
			_, err = HolderBalances(ctx, http.DefaultClient, url, "atest", 5, 0)
		} else {
			_, err = AccountSequences(ctx, http.DefaultClient, url, 5)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want an error saying %q", c.name, err, c.want)
		}
	}
}
