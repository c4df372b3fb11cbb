package kubernetes

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"
)

// A forwarder carries the harness's connections to pods' ports through
// the API server (the pods/portforward subresource, as `kubectl
// port-forward`), for a harness where pod IPs do not route. Each pod
// port has a listener on 127.0.0.1 for the provider's life, so the URLs
// the harness holds stay right when a pod is made again; each connection
// it accepts is a stream to the pod as it is then. One upgraded
// connection to the API server a pod carries all of that pod's streams.
type forwarder struct {
	cfg *rest.Config
	cs  kubernetes.Interface
	ns  string
	log *slog.Logger

	mu     sync.Mutex
	addrs  map[podPort]string               // the local address of each pod port
	lns    []net.Listener                   // every listener, closed by close
	conns  map[string]httpstream.Connection // by pod name
	closed bool
	wg     sync.WaitGroup
	reqID  atomic.Int64
}

type podPort struct {
	pod  string
	port int
}

func newForwarder(cfg *rest.Config, cs kubernetes.Interface, ns string, log *slog.Logger) *forwarder {
	return &forwarder{cfg: cfg, cs: cs, ns: ns, log: log, addrs: map[podPort]string{}, conns: map[string]httpstream.Connection{}}
}

// listen opens the local listeners of pod's ports.
func (f *forwarder) listen(pod string, ports ...int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, port := range ports {
		k := podPort{pod, port}
		if _, ok := f.addrs[k]; ok {
			continue
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("port-forward to %s:%d: %w", pod, port, err)
		}
		f.addrs[k] = ln.Addr().String()
		f.lns = append(f.lns, ln)
		f.wg.Add(1)
		go f.serve(ln, k)
	}
	return nil
}

// addr is the local address that reaches pod's port ("" when it was not
// listened for).
func (f *forwarder) addr(pod string, port int) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.addrs[podPort{pod, port}]
}

func (f *forwarder) serve(ln net.Listener, k podPort) {
	defer f.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			return // closed
		}
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			f.handle(c, k)
		}()
	}
}

// handle carries one local connection to the pod: an error stream and a
// data stream on the pod's upgraded connection (the protocol's pair),
// copied both ways until either side ends. An error from the kubelet
// (the pod gone, nothing listening) drops the pod's connection, so the
// next one dials the pod as it is then.
func (f *forwarder) handle(c net.Conn, k podPort) {
	defer c.Close()
	conn, err := f.conn(k.pod)
	if err != nil {
		f.log.Debug("port-forward", "pod", k.pod, "port", k.port, "err", err)
		return
	}
	h := http.Header{}
	h.Set(corev1.StreamType, corev1.StreamTypeError)
	h.Set(corev1.PortHeader, strconv.Itoa(k.port))
	h.Set(corev1.PortForwardRequestIDHeader, strconv.FormatInt(f.reqID.Add(1), 10))
	errStream, err := conn.CreateStream(h)
	if err != nil {
		f.drop(k.pod, conn)
		return
	}
	errStream.Close() // nothing is written to it
	defer conn.RemoveStreams(errStream)
	errc := make(chan error, 1)
	go func() {
		// At most a line of the kubelet's; bounded all the same.
		msg, err := io.ReadAll(io.LimitReader(errStream, 4096))
		if err == nil && len(msg) > 0 {
			err = fmt.Errorf("%s", msg)
		}
		errc <- err
	}()
	h.Set(corev1.StreamType, corev1.StreamTypeData)
	data, err := conn.CreateStream(h)
	if err != nil {
		f.drop(k.pod, conn)
		return
	}
	defer conn.RemoveStreams(data)
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(c, data)
		close(done)
	}()
	go func() {
		_, _ = io.Copy(data, c)
		data.Close() // the local side is done sending
	}()
	<-done
	_ = data.Reset()
	if err := <-errc; err != nil {
		f.log.Debug("port-forward", "pod", k.pod, "port", k.port, "err", err)
		f.drop(k.pod, conn)
	}
}

// conn is the pod's upgraded connection to the API server, dialled when
// there is none or the one there is has closed. The dial is bounded
// (dialTimeout) and made outside the lock: a slow API server holds up
// only the connections to that pod.
func (f *forwarder) conn(pod string) (httpstream.Connection, error) {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil, errors.New("port-forward: closed")
	}
	if c, ok := f.conns[pod]; ok {
		select {
		case <-c.CloseChan():
			delete(f.conns, pod)
		default:
			f.mu.Unlock()
			return c, nil
		}
	}
	f.mu.Unlock()
	c, err := f.dial(pod)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		c.Close()
		return nil, errors.New("port-forward: closed")
	}
	if other, ok := f.conns[pod]; ok { // dialled meanwhile by another connection
		c.Close()
		return other, nil
	}
	f.conns[pod] = c
	return c, nil
}

// dialTimeout bounds the upgrade of a connection to the API server.
const dialTimeout = 15 * time.Second

func (f *forwarder) dial(pod string) (httpstream.Connection, error) {
	transport, upgrader, err := spdy.RoundTripperFor(f.cfg)
	if err != nil {
		return nil, err
	}
	u := f.cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(f.ns).Name(pod).SubResource("portforward").URL()
	d := spdy.NewDialer(upgrader, &http.Client{Transport: transport}, http.MethodPost, u)
	type dialed struct {
		c     httpstream.Connection
		proto string
		err   error
	}
	ch := make(chan dialed, 1)
	go func() {
		c, proto, err := d.Dial(portforward.PortForwardProtocolV1Name)
		ch <- dialed{c, proto, err}
	}()
	var r dialed
	select {
	case r = <-ch:
	case <-time.After(dialTimeout):
		go func() { // the dial may still end: close what it makes
			if r := <-ch; r.c != nil {
				r.c.Close()
			}
		}()
		return nil, fmt.Errorf("port-forward to pod %s/%s through the API server: no answer in %s", f.ns, pod, dialTimeout)
	}
	if r.err != nil {
		return nil, fmt.Errorf("port-forward to pod %s/%s through the API server: %w", f.ns, pod, r.err)
	}
	if r.proto != portforward.PortForwardProtocolV1Name {
		r.c.Close()
		return nil, fmt.Errorf("port-forward to pod %s/%s: the API server speaks %q", f.ns, pod, r.proto)
	}
	return r.c, nil
}

// drop closes the pod's connection if it is still conn.
func (f *forwarder) drop(pod string, conn httpstream.Connection) {
	f.mu.Lock()
	if f.conns[pod] == conn {
		delete(f.conns, pod)
	}
	f.mu.Unlock()
	conn.Close()
}

// forget drops the pod's connection: the pod was made again.
func (f *forwarder) forget(pod string) {
	f.mu.Lock()
	c, ok := f.conns[pod]
	delete(f.conns, pod)
	f.mu.Unlock()
	if ok {
		c.Close()
	}
}

// close ends every listener and connection and waits for their
// goroutines.
func (f *forwarder) close() {
	f.mu.Lock()
	f.closed = true
	lns, conns := f.lns, f.conns
	f.lns, f.conns = nil, map[string]httpstream.Connection{}
	f.mu.Unlock()
	for _, ln := range lns {
		ln.Close()
	}
	for _, c := range conns {
		c.Close()
	}
	f.wg.Wait()
}
