package kubernetes

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/chainperf/chainperf/internal/nodehttp"
	"github.com/chainperf/chainperf/internal/testnet"
)

// dialPeers asks n to dial its persistent peers and seeds at their pods'
// current addresses.
func (p *Provider) dialPeers(ctx context.Context, n *testnet.Node) error {
	peers, seeds := p.net.PeerAddresses(n)
	if len(peers)+len(seeds) == 0 {
		return nil
	}
	if len(peers) > 0 {
		if err := p.unsafeRPC(ctx, n, "dial_peers", url.Values{"peers": {quoteList(peers)}, "persistent": {"true"}}); err != nil {
			return err
		}
	}
	if len(seeds) > 0 {
		if err := p.unsafeRPC(ctx, n, "dial_seeds", url.Values{"seeds": {quoteList(seeds)}}); err != nil {
			return err
		}
	}
	return nil
}

// unsafeRPC calls one of the node's unsafe RPC methods (the CometBFT
// client has no call for them) and returns its error, if any.
func (p *Provider) unsafeRPC(ctx context.Context, n *testnet.Node, method string, q url.Values) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.Endpoint(n).RPC+"/"+method+"?"+q.Encode(), nil)
	if err != nil {
		return err
	}
	resp, err := nodehttp.Client(nodehttp.Small).Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	defer resp.Body.Close()
	var out struct {
		Error *struct {
			Message string `json:"message"`
			Data    string `json:"data"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return fmt.Errorf("%s: %s answered %s: %w", method, n.Name, resp.Status, err)
	}
	if out.Error != nil {
		return fmt.Errorf("%s: %s %s", method, out.Error.Message, out.Error.Data)
	}
	return nil
}

// quoteList is a JSON list of strings, as the RPC's URI form takes it.
func quoteList(xs []string) string {
	b, _ := json.Marshal(xs)
	return string(b)
}
