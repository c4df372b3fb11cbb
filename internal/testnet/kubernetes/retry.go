package kubernetes

import (
	"context"
	"net/http"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// retryLost sends a request to the API server again, on a new connection,
// when the connection it went on was lost before an answer came: a
// missed HTTP/2 ping ("client connection lost"), a reset, an EOF. On a
// machine the testnet fills, the API server or this process can stall
// past the client's ping timeout for a moment, and a run should not end
// for it. client-go sends again only GETs; a create sent again may find
// what its first attempt made, which the creates take as made (madeBefore).
type retryLost struct{ next http.RoundTripper }

// lostTries is how many times a request is sent in all; lostWait the
// first wait between two, doubled each time (0.5 + 1 + 2 + 4 s).
const lostTries = 5

var lostWait = 500 * time.Millisecond

func (r retryLost) RoundTrip(req *http.Request) (*http.Response, error) {
	wait := lostWait
	for try := 1; ; try++ {
		resp, err := r.next.RoundTrip(req)
		if err == nil || try == lostTries || !connectionLost(err) {
			return resp, err
		}
		if req.Body != nil && req.Body != http.NoBody {
			if req.GetBody == nil {
				return resp, err // a body that cannot be read again
			}
			body, berr := req.GetBody()
			if berr != nil {
				return resp, err
			}
			req = req.Clone(req.Context())
			req.Body = body
		}
		select {
		case <-req.Context().Done():
			return nil, err
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// connectionLost is whether err says the connection went away rather
// than the server refused or the request was cancelled.
func connectionLost(err error) bool {
	return utilnet.IsProbableEOF(err) || utilnet.IsConnectionReset(err) ||
		strings.Contains(err.Error(), "http2: client connection lost")
}

// madeBefore says whether a create that failed with err made its object
// all the same: retryLost sent it again after a lost connection and the
// second found what the first made (AlreadyExists). It did when the
// object there carries every label of want (this testnet's ID, unique
// to it, is among them; a harness's name is drawn at random) and is not
// on its way out.
func madeBefore(ctx context.Context, err error, want map[string]string, get func(context.Context) (metav1.Object, error)) bool {
	if !apierrors.IsAlreadyExists(err) || len(want) == 0 {
		return false
	}
	there, gerr := get(ctx)
	if gerr != nil || there.GetDeletionTimestamp() != nil {
		return false
	}
	for k, v := range want {
		if there.GetLabels()[k] != v {
			return false
		}
	}
	return true
}
